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

// applyWithin is how soon the watcher must apply an edit.
const applyWithin = time.Second

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

// watchedCommand makes a FileSource over path, a Store over it and the command key W.
func watchedCommand(t *testing.T, path string) (*FileSource, *CommandProperties, *errLog) {
	t.Helper()
	src, err := NewFileSource(path)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, src.Close()) })
	store := NewStore(src)
	log := &errLog{}
	cancel := store.OnError(log.add)
	t.Cleanup(func() { cancel(); store.Close() })
	c, err := store.Command("W", nil)
	require.NoError(t, err)
	return src, c, log
}

func timeoutIs(c *CommandProperties, d time.Duration) func() bool {
	return func() bool { return ExecutionTimeout.In(c).Get() == d }
}

func TestFileSourceAppliesEditsWithoutReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=300\n")
	_, c, log := watchedCommand(t, path)
	require.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())

	start := time.Now()
	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=400ms\n")
	require.Eventually(t, timeoutIs(c, 400*time.Millisecond), applyWithin, time.Millisecond, "edit in place")
	t.Logf("edit in place applied after %v", time.Since(start))

	tmp := path + ".tmp"
	writeFile(t, tmp, "hystrix.command.default.execution.isolation.thread.timeoutInMilliseconds=500\n")
	require.NoError(t, os.Rename(tmp, path))
	require.Eventually(t, timeoutIs(c, 500*time.Millisecond), applyWithin, time.Millisecond, "renamed over")

	require.NoError(t, os.Remove(path))
	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=600\n")
	require.Eventually(t, timeoutIs(c, 600*time.Millisecond), applyWithin, time.Millisecond, "removed and made again")
	assert.Empty(t, log.take())
}

// TestFileSourceFollowsConfigMapSwap replays what Kubernetes does to a ConfigMap volume:
// the file is a link through ..data to a timestamped directory, and an update makes a
// new directory, points a new link at it, renames that link over ..data and removes the
// old directory.
func TestFileSourceFollowsConfigMapSwap(t *testing.T) {
	dir := t.TempDir()
	version := 0
	publish := func(content string) {
		version++
		data := filepath.Join(dir, "..v"+string(rune('0'+version)))
		require.NoError(t, os.Mkdir(data, 0o700))
		writeFile(t, filepath.Join(data, "hystrix.properties"), content)
		require.NoError(t, os.Symlink(filepath.Base(data), filepath.Join(dir, "..data_tmp")))
		require.NoError(t, os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")))
		if version > 1 {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "..v"+string(rune('0'+version-1)))))
		}
	}
	publish("hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=300\n")
	path := filepath.Join(dir, "hystrix.properties")
	require.NoError(t, os.Symlink(filepath.Join("..data", "hystrix.properties"), path))
	_, c, log := watchedCommand(t, path)
	require.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())

	for i, d := range []time.Duration{400 * time.Millisecond, 500 * time.Millisecond, 600 * time.Millisecond} {
		publish("hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=" + d.String() + "\n")
		require.Eventually(t, timeoutIs(c, d), applyWithin, time.Millisecond, "swap %d", i+1)
	}
	assert.Empty(t, log.take())
}

func TestFileSourceBadEditKeepsPreviousValues(t *testing.T) {
	buf := captureSlog(t)
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=300\n")
	src, c, log := watchedCommand(t, path)

	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=300\noops\n")
	require.Eventually(t, func() bool { return strings.Contains(buf.String(), "properties file not reloaded") }, applyWithin, time.Millisecond)
	assert.Contains(t, buf.String(), path+`:2: missing '=' in \"oops\"`)
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get(), "an unparsable file changes nothing")

	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=-5\n"+
		"hystrix.command.W.fallback.enabled=false\n"+
		"hystrix.command.W.execution.timeout.enable=false\n")
	require.Eventually(t, func() bool { return log.count() == 2 }, applyWithin, time.Millisecond)
	assert.False(t, FallbackEnabled.In(c).Get(), "the good entry applies")
	assert.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get(), "the bad entry keeps the previous value")
	assert.True(t, ExecutionTimeoutEnabled.In(c).Get())
	errs := log.take()
	require.Len(t, errs, 2)
	assert.ErrorIs(t, errs[0], ErrInvalidValue)
	assert.ErrorIs(t, errs[1], ErrUnknownProperty)

	err := src.Reload()
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "Reload reports what it refused: %v", err)
	assert.Equal(t, path, refused.Source)
	assert.EqualError(t, err, "config: "+path+": refused"+
		` hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds: invalid value "-5": must be > 0;`+
		` unknown property hystrix.command.W.execution.timeout.enable (value "false"); did you mean hystrix.command.W.execution.timeout.enabled?`)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.ErrorIs(t, err, ErrUnknownProperty)
	assert.Empty(t, log.take(), "reported once, however often reloaded")

	writeFile(t, path, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=700\n")
	require.NoError(t, src.Reload())
	assert.Equal(t, 700*time.Millisecond, ExecutionTimeout.In(c).Get())
}

// TestFileSourceFollowsLinkToOtherDirectory: edits of a link's target in another
// directory apply, also after the link is pointed elsewhere.
func TestFileSourceFollowsLinkToOtherDirectory(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"conf", "v1", "v2"} {
		require.NoError(t, os.Mkdir(filepath.Join(base, d), 0o700))
	}
	v1, v2 := filepath.Join(base, "v1", "h.properties"), filepath.Join(base, "v2", "h.properties")
	writeFile(t, v1, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=300\n")
	writeFile(t, v2, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=400\n")
	path := filepath.Join(base, "conf", "h.properties")
	require.NoError(t, os.Symlink(v1, path))
	_, c, _ := watchedCommand(t, path)
	require.Equal(t, 300*time.Millisecond, ExecutionTimeout.In(c).Get())

	writeFile(t, v1, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=350\n")
	require.Eventually(t, timeoutIs(c, 350*time.Millisecond), applyWithin, time.Millisecond, "target edited")

	require.NoError(t, os.Symlink(v2, path+".new"))
	require.NoError(t, os.Rename(path+".new", path))
	require.Eventually(t, timeoutIs(c, 400*time.Millisecond), applyWithin, time.Millisecond, "link retargeted")

	writeFile(t, v2, "hystrix.command.W.execution.isolation.thread.timeoutInMilliseconds=450\n")
	require.Eventually(t, timeoutIs(c, 450*time.Millisecond), applyWithin, time.Millisecond, "new target edited")
}

func TestFileSourceCloseStopsWatching(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.properties")
	writeFile(t, path, "a=1\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	require.NoError(t, src.Close())
	require.NoError(t, src.Close())
	select {
	case <-src.watch.done:
	default:
		t.Fatal("the watcher goroutine is still running")
	}
	v, ok := src.Get("a")
	assert.True(t, ok)
	assert.Equal(t, "1", v, "values stay")
}

// TestFileSourceNeverAppliesAHalfWrittenFile: a writer that truncates the file and then
// pauses, and one that pauses mid-line, each longer than the watcher waits: neither
// state applies (each is logged); the whole file does.
func TestFileSourceNeverAppliesAHalfWrittenFile(t *testing.T) {
	buf := captureSlog(t)
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	const threshold = "hystrix.command.W.circuitBreaker.errorThresholdPercentage="
	writeFile(t, path, threshold+"35\nhystrix.command.W.circuitBreaker.forceOpen=true\n")
	src, c, log := watchedCommand(t, path)
	unchanged := func(what string) {
		t.Helper()
		assert.Equal(t, 35, CircuitBreakerErrorThresholdPercentage.In(c).Get(), what)
		assert.True(t, CircuitBreakerForceOpen.In(c).Get(), what)
	}
	logged := func(msg string) func() bool { return func() bool { return strings.Contains(buf.String(), msg) } }

	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	defer f.Close()
	require.Eventually(t, logged(path+" is empty, the previous values stay"), applyWithin, time.Millisecond)
	unchanged("truncated")
	assert.ErrorIs(t, src.Reload(), ErrPartialFile)

	_, err = f.WriteString(threshold + "4")
	require.NoError(t, err)
	require.Eventually(t, logged("the last line of "+path+" has no line break"), applyWithin, time.Millisecond)
	unchanged("cut mid-line")
	assert.ErrorIs(t, src.Reload(), ErrPartialFile)

	_, err = f.WriteString("5\nhystrix.command.W.circuitBreaker.forceOpen=true\n")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return CircuitBreakerErrorThresholdPercentage.In(c).Get() == 45 }, applyWithin, time.Millisecond)
	assert.True(t, CircuitBreakerForceOpen.In(c).Get())
	assert.Empty(t, log.take())

	writeFile(t, path, "# no overrides\n")
	require.Eventually(t, func() bool { return !CircuitBreakerForceOpen.In(c).Get() }, applyWithin, time.Millisecond,
		"a file left with a comment clears every property")
	assert.Equal(t, 50, CircuitBreakerErrorThresholdPercentage.In(c).Get())
}

func TestNewFileSourceRefusesAHalfWrittenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "hystrix.command.W.fallback.enabled=false")
	_, err := NewFileSource(path)
	assert.ErrorIs(t, err, ErrPartialFile)
	assert.EqualError(t, err, "config: properties file looks half-written: the last line of "+path+
		" has no line break, the previous values stay until it has one")

	writeFile(t, path, "")
	src, err := NewFileSource(path)
	require.NoError(t, err, "an empty file drops no values")
	defer src.Close()
	assert.Empty(t, src.Names())
}
