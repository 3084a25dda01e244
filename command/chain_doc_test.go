package command

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheDocumentedChainIsTheLayout holds the chain docs/commands-and-chain.md draws to
// chain.go's layout: the same stages, in the same order.
func TestTheDocumentedChainIsTheLayout(t *testing.T) {
	doc, err := os.ReadFile("../docs/commands-and-chain.md")
	require.NoError(t, err)
	var drawn []string
	in := false
	for line := range strings.SplitSeq(string(doc), "\n") {
		if strings.HasPrefix(line, "    front door") {
			in = true
			continue
		}
		if in && !strings.HasPrefix(line, "    ") {
			break
		}
		if in && !strings.HasPrefix(line, "     ") { // a stage's first line, not its continuation
			drawn = append(drawn, strings.Fields(line)[0])
		}
	}
	var layoutNames []string
	for _, s := range layout {
		layoutNames = append(layoutNames, strings.TrimPrefix(fmt.Sprintf("%T", s), "command."))
	}
	assert.Equal(t, layoutNames, drawn)
}
