package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n" +
		"  ! also a comment\n" +
		"\n" +
		"hystrix.command.default.fallback.enabled = false\n" +
		"\thystrix.command.A.execution.isolation.strategy:SEMAPHORE  \n" +
		"url = http://host:8080/x=y\n" +
		"empty.value =\n" +
		"list = a, \\\n" +
		"       b, \\\n" +
		"       c\n" +
		"path = C:\\\\dir\\\\\n" +
		"dup = 1\n" +
		"dup = 2\n" +
		"last = no newline \\"
	got, err := ParseProperties(strings.NewReader(in), "app.properties")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"hystrix.command.default.fallback.enabled":       "false",
		"hystrix.command.A.execution.isolation.strategy": "SEMAPHORE",
		"url":         "http://host:8080/x=y",
		"empty.value": "",
		"list":        "a, b, c",
		"path":        `C:\\dir\\`,
		"dup":         "2",
		"last":        "no newline",
	}, got)
}

func TestParsePropertiesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a=1\njust a line\n", `config: bad.properties:2: missing '=' in "just a line"`},
		{"# c\n\n = value\n", `config: bad.properties:3: empty key in "= value"`},
		{"a=1\nb \\\n  c\n", `config: bad.properties:2: missing '=' in "b c"`},
	} {
		_, err := ParseProperties(strings.NewReader(tc.in), "bad.properties")
		var pe *ParseError
		require.True(t, errors.As(err, &pe), tc.in)
		assert.EqualError(t, err, tc.want)
		assert.Equal(t, "bad.properties", pe.File)
	}
}

func TestFileSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	write := func(s string) { require.NoError(t, os.WriteFile(path, []byte(s), 0o600)) }
	write("hystrix.command.F.execution.isolation.thread.timeoutInMilliseconds=300\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	defer src.Close()
	store := NewStore(src)
	defer store.Close()
	c, err := store.Command("F", nil)
	require.NoError(t, err)
	assert.Equal(t, 300*time.Millisecond, c.ExecutionTimeout.Get())

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=400\n")
	require.NoError(t, src.Reload())
	assert.Equal(t, 400*time.Millisecond, c.ExecutionTimeout.Get(), "removed key falls back; edit applies")

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=500\noops\n")
	err = src.Reload()
	assert.EqualError(t, err, "config: "+path+`:2: missing '=' in "oops"`)
	assert.Equal(t, 400*time.Millisecond, c.ExecutionTimeout.Get(), "a broken file changes nothing")

	require.NoError(t, os.Remove(path))
	assert.Error(t, src.Reload())
	_, err = NewFileSource(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestParsePropertiesByteOrderMark(t *testing.T) {
	got, err := ParseProperties(strings.NewReader("\ufeffhystrix.command.default.fallback.enabled=false\nb=2\n"), "bom.properties")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"hystrix.command.default.fallback.enabled": "false", "b": "2"}, got)
	_, err = ParseProperties(strings.NewReader("a=1\n\ufeffb=2\n"), "bom.properties")
	require.NoError(t, err, "only a mark at the start is skipped")
}

func TestParsePropertiesLongLine(t *testing.T) {
	long := "b=" + strings.Repeat("x", MaxLineLength-2)
	got, err := ParseProperties(strings.NewReader("a=1\n"+long+"\n"), "long.properties")
	require.NoError(t, err, "a line of MaxLineLength bytes is read")
	assert.Len(t, got["b"], MaxLineLength-2)

	_, err = ParseProperties(strings.NewReader("a=1\n# two\n"+long+"x\nc=3\n"), "long.properties")
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.EqualError(t, err, "config: long.properties:3: line longer than 65536 bytes")
}
