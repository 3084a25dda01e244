package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=400\n")
	require.NoError(t, src.Reload())
	assert.Equal(t, 400*time.Millisecond, ExecutionTimeout.In(c).Get(), "removed key falls back; edit applies")

	write("hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=500\noops\n")
	err = src.Reload()
	assert.EqualError(t, err, "config: "+path+`:2: missing '=' in "oops"`)
	assert.Equal(t, 400*time.Millisecond, ExecutionTimeout.In(c).Get(), "a broken file changes nothing")

	require.NoError(t, os.Remove(path))
	assert.Error(t, src.Reload())
	_, err = NewFileSource(path)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
