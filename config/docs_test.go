package config_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/config"
)

// TestDocsListEveryProperty holds the tables of docs/configuration.md to the code: every
// property of each scope, in the order the scope declares them, with its built-in default.
func TestDocsListEveryProperty(t *testing.T) {
	page, err := os.ReadFile("../docs/configuration.md")
	require.NoError(t, err)
	tables := documented(string(page))
	store := config.NewStore()
	defer store.Close()
	cmd, err := store.Command("K", nil)
	require.NoError(t, err)
	pool, err := store.ThreadPool("P", nil)
	require.NoError(t, err)
	coll, err := store.Collapser("C", nil)
	require.NoError(t, err)
	for scope, settings := range map[string][]config.Setting{
		"hystrix.command.<KEY>": cmd.Settings(), "hystrix.threadpool.<POOL>": pool.Settings(),
		"hystrix.collapser.<KEY>": coll.Settings(),
	} {
		var want []string
		for _, s := range settings {
			want = append(want, s.Name+" = "+s.Value)
		}
		assert.Equal(t, want, tables[scope], "the table of %s in docs/configuration.md", scope)
	}
}

// documented returns the rows of the page's property tables, "name = default" by scope
// (the scope of the heading above the table, e.g. "hystrix.command.<KEY>").
func documented(page string) map[string][]string {
	tables := map[string][]string{}
	var scope string
	for line := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(line, "#") {
			scope = ""
			if _, s, ok := strings.Cut(line, "`"); ok && strings.HasPrefix(line, "### ") {
				scope = strings.TrimSuffix(strings.Split(s, "`")[0], ".<name>")
			}
			continue
		}
		cells := strings.Split(line, "|")
		if scope == "" || len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		def := strings.TrimSpace(cells[2])
		if def == "unset" {
			def = ""
		}
		tables[scope] = append(tables[scope], name+" = "+strings.Trim(def, "`"))
	}
	return tables
}
