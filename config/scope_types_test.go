package config_test

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// typeCheck type-checks a file of package p that imports config, and returns its error.
func typeCheck(t *testing.T, src string) error {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n\nimport \"github.com/rxhystrix/rxhystrix/config\"\n\n"+src, 0)
	require.NoError(t, err)
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	_, err = conf.Check("p", fset, []*ast.File{f}, nil)
	return err
}

// The scope of values set in code is part of their type: thread-pool values where command
// values go, or the other way round, do not compile (they used to, and failed every
// execution at run time).
func TestValuesOfOneScopeDoNotCompileAsAnothers(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the config package from source")
	}
	require.NoError(t, typeCheck(t, `var _ config.Overrides = config.Set(config.ExecutionTimeout.Of(1))
var _ config.ThreadPoolOverrides = config.Set(config.ThreadPoolCoreSize.Of(4))
var _ config.CollapserOverrides = config.Set(config.CollapserTimerDelay.Of(1))`), "each scope's own values")
	for _, src := range []string{
		`var _ config.Overrides = config.Set(config.ThreadPoolCoreSize.Of(4))`,
		`var _ config.ThreadPoolOverrides = config.Set(config.ExecutionTimeout.Of(1))`,
		`var _ config.CollapserOverrides = config.Overrides{"timerDelayInMilliseconds": "5"}`,
		`var _ config.ThreadPoolOverrides = config.Overrides{"coreSize": "4"}`,
	} {
		assert.Error(t, typeCheck(t, src), src)
	}
}
