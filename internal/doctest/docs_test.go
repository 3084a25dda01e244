package doctest

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDocsCompile compiles every Go block of the repository's README and of every page in
// its docs/.
func TestDocsCompile(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages, "no pages in docs/")
	AssertCompiles(t, "../..", append([]string{"../../README.md"}, pages...)...)
}
