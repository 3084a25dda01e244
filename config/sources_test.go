package config

import (
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/internal/syncbuf"
)

func captureSlog(t *testing.T) *syncbuf.Buffer {
	t.Helper()
	var buf syncbuf.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })
	return &buf
}

func TestMemorySourceReturnsRefusedEntries(t *testing.T) {
	mem, store, log := newTestStore(t)
	c, err := store.Command("M", nil)
	require.NoError(t, err)
	err = mem.Apply(map[string]string{
		"hystrix.command.M." + timeoutName:       "-1",
		"hystrix.command.M.fallback.enabled":     "false",
		"hystrix.command.M.metrics.rollingStats": "9",
	}, nil)
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	assert.Equal(t, "memory", refused.Source)
	require.Len(t, refused.Entries, 2)
	assert.Equal(t, "hystrix.command.M."+timeoutName, refused.Entries[0].Name)
	assert.Equal(t, "hystrix.command.M.metrics.rollingStats", refused.Entries[1].Name)
	assert.ErrorIs(t, refused.Entries[1], ErrUnknownProperty)
	assert.False(t, FallbackEnabled.In(c).Get(), "the good entry applies")
	assert.Len(t, log.take(), 2)

	assert.Equal(t, err, mem.Set("hystrix.command.M.fallback.enabled", "false"), "no change: the same refusals")
	require.Error(t, mem.Apply(nil, []string{"hystrix.command.M.metrics.rollingStats"}), "the bad timeout is still there")
	assert.NoError(t, mem.Set("hystrix.command.M."+timeoutName, "20"))
	assert.Equal(t, 20*time.Millisecond, ExecutionTimeout.In(c).Get())
}

func TestUnknownDynamicNameWarnedOncePerName(t *testing.T) {
	buf := captureSlog(t)
	mem, store, log := newTestStore(t)
	_, err := store.Command("GetUser", nil)
	require.NoError(t, err)

	err = mem.Set("hystrix.command.GetUser.execution.timeout.enable", "false")
	assert.ErrorIs(t, err, ErrUnknownProperty)
	mem.Set("hystrix.command.GetUser.fallback.enabled", "false")
	mem.Set("hystrix.command.GetUser.execution.timeout.enable", "true")
	out := buf.String()
	assert.Equal(t, 1, strings.Count(out, "execution.timeout.enable "), out)
	assert.Contains(t, out, `level=WARN msg="config: no property has this name, it is ignored" property=hystrix.command.GetUser.execution.timeout.enable value=false hint="did you mean hystrix.command.GetUser.execution.timeout.enabled?"`)
	errs := log.take()
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrUnknownProperty)

	require.NoError(t, mem.Apply(nil, []string{"hystrix.command.GetUser.execution.timeout.enable"}))
	for _, known := range []string{
		"hystrix.command.com.example.GetUser.fallback.enabled", // keys may hold dots
		"hystrix.threadpool.default.coreSize",
		"hystrix.collapser.Batch.timerDelayInMilliseconds",
		"url", // not meant to be a property
	} {
		require.NoError(t, mem.Set(known, "1"), known)
	}
	assert.Empty(t, log.take())
	assert.Equal(t, 1, strings.Count(buf.String(), "no property has this name"))

	mem.Set("hystrix.threadpool.P.coreSise", "4")
	assert.Contains(t, buf.String(), `property=hystrix.threadpool.P.coreSise value=4 hint="did you mean hystrix.threadpool.P.coreSize?"`)
}

func TestUnknownEnvironmentNameWarned(t *testing.T) {
	buf := captureSlog(t)
	t.Setenv("HYSTRIX_COMMAND_GETUSER_EXECUTION_TIMEOUT_ENABLE", "false")
	t.Setenv("HYSTRIX_COMMAND_GETUSER_EXECUTION_TIMEOUT_ENABLED", "false")
	t.Setenv("HYSTRIX_DASHBOARD_PORT", "7979")
	t.Setenv("HISTORY_FILE", "~/.history")
	store := NewStore(NewEnvSource())
	defer store.Close()
	out := buf.String()
	assert.Equal(t, 2, strings.Count(out, "no property has this name"), out)
	assert.Contains(t, out, `property=HYSTRIX_DASHBOARD_PORT value=7979 hint="property names in the environment start with HYSTRIX_COMMAND_, HYSTRIX_THREADPOOL_ or HYSTRIX_COLLAPSER_"`)
	assert.Contains(t, out, `property=HYSTRIX_COMMAND_GETUSER_EXECUTION_TIMEOUT_ENABLE value=false hint="did you mean HYSTRIX_COMMAND_GETUSER_EXECUTION_TIMEOUT_ENABLED?"`)
}

func TestAddSourceToDefault(t *testing.T) {
	const key = "config.TestAddSourceToDefault"
	c, err := Default().Command(key, nil)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "hystrix.command."+key+"."+timeoutName+"=250\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	defer src.Close()

	remove, err := Default().AddSource(src)
	require.NoError(t, err)
	assert.Equal(t, 250*time.Millisecond, ExecutionTimeout.In(c).Get(), "applies at once")

	require.NoError(t, DefaultSource().Set("hystrix.command."+key+"."+timeoutName, "42"))
	assert.Equal(t, 42*time.Millisecond, ExecutionTimeout.In(c).Get(), "an added source ranks below the existing ones")
	require.NoError(t, DefaultSource().Apply(nil, []string{"hystrix.command." + key + "." + timeoutName}))
	assert.Equal(t, 250*time.Millisecond, ExecutionTimeout.In(c).Get())

	writeFile(t, path, "hystrix.command."+key+"."+timeoutName+"=260\n")
	require.Eventually(t, timeoutIs(c, 260*time.Millisecond), applyWithin, time.Millisecond, "watched")

	remove()
	remove()
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get(), "removed: back to the built-in default")
	writeFile(t, path, "hystrix.command."+key+"."+timeoutName+"=270\n")
	require.NoError(t, src.Reload())
	assert.Equal(t, time.Second, ExecutionTimeout.In(c).Get(), "no longer subscribed")
}

func TestAddedSourcePrecedence(t *testing.T) {
	first, added := NewMemorySource(), NewMemorySource()
	first.Set("hystrix.command.default."+timeoutName, "111")
	first.Set("hystrix.command.K.fallback.enabled", "false")
	added.Set("hystrix.command.K."+timeoutName, "222")
	added.Set("hystrix.command.K.fallback.enabled", "true")
	store := NewStore(first)
	defer store.Close()
	c, err := store.Command("K", nil)
	require.NoError(t, err)
	_, err = store.AddSource(added)
	require.NoError(t, err)
	assert.Equal(t, 222*time.Millisecond, ExecutionTimeout.In(c).Get(), "a key value in an added source beats a default value")
	assert.False(t, FallbackEnabled.In(c).Get(), "the same name: the earlier source wins")

	store.Close()
	_, err = store.AddSource(NewMemorySource())
	assert.ErrorIs(t, err, ErrClosed)
}

// TestMisspeltScopesAndPrefixesRefused: a name that starts like a property name, with a
// misspelt scope or prefix, is refused like a misspelt property name, with the name
// meant.
func TestMisspeltScopesAndPrefixesRefused(t *testing.T) {
	for _, tc := range []struct{ name, hint string }{
		{"hystrix.comand.GetUser.fallback.enabled", "did you mean hystrix.command.GetUser.fallback.enabled?"},
		{"hystrix.threadPool.P.coreSize", "did you mean hystrix.threadpool.P.coreSize?"},
		{"hystrix.thread.pool.P.coreSize", "did you mean hystrix.threadpool.P.coreSize?"},
		{"Hystrix.command.GetUser.fallback.enabled", "did you mean hystrix.command.GetUser.fallback.enabled?"},
		{"HYSTRIX.collapser.B.maxRequestsInBatch", "did you mean hystrix.collapser.B.maxRequestsInBatch?"},
		{"hystrx.command.com.example.Get.fallback.enabled", "did you mean hystrix.command.com.example.Get.fallback.enabled?"},
		{"hystrix.comand.GetUser.fallback.enable", "did you mean hystrix.command.GetUser.fallback.enabled?"},
		{"hystrix.comand.GetUser.nothing.like.it", "did you mean hystrix.command.GetUser.nothing.like.it? (but no command property has that name)"},
		{"hystrix.stream.maxConcurrentConnections", "property names start with hystrix.command., hystrix.threadpool. or hystrix.collapser."},
		{"HYSTRIX_COMMAND_GETUSER_FALLBACK_ENABLED", "the HYSTRIX_COMMAND_… form is read from the environment only: write hystrix.command.<KEY>.fallback.enabled"},
		{"HYSTRIX_COMAND_GETUSER_FALLBACK_ENABLED", "did you mean HYSTRIX_COMMAND_GETUSER_FALLBACK_ENABLED?"},
	} {
		mem, _, log := newTestStore(t)
		err := mem.Set(tc.name, "1")
		var refused *RefusedError
		require.True(t, errors.As(err, &refused), "%s: %v", tc.name, err)
		require.Len(t, refused.Entries, 1, tc.name)
		assert.ErrorIs(t, err, ErrUnknownProperty, tc.name)
		assert.Equal(t, tc.hint, refused.Entries[0].Hint, tc.name)
		assert.Len(t, log.take(), 1, tc.name)
	}

	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "Hystrix.command.F.fallback.enabled=false\nhystrix.command.F.fallback.enabled=false\nurl=x\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	defer src.Close()
	store := NewStore(src)
	defer store.Close()
	err = src.Reload()
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	require.Len(t, refused.Entries, 1)
	assert.Equal(t, "Hystrix.command.F.fallback.enabled", refused.Entries[0].Name)
}

func TestMisspeltEnvironmentNamesWarned(t *testing.T) {
	buf := captureSlog(t)
	for name, hint := range map[string]string{
		"HYSTRIX_COMAND_GETUSER_FALLBACK_ENABLED":  "did you mean HYSTRIX_COMMAND_GETUSER_FALLBACK_ENABLED?",
		"HYSTRIX_THREAD_POOL_P_CORESIZE":           "did you mean HYSTRIX_THREADPOOL_P_CORESIZE?",
		"hystrix_command_getuser_fallback_enabled": "did you mean HYSTRIX_COMMAND_GETUSER_FALLBACK_ENABLED?",
		"Hystrix.command.GetUser.fallback.enabled": "did you mean hystrix.command.GetUser.fallback.enabled?",
	} {
		t.Setenv(name, "false")
		defer func() {
			assert.Contains(t, buf.String(), "property="+name+" value=false hint=\""+hint+"\"")
		}()
	}
	t.Setenv("HYSTRIX_COMMAND_GETUSER_FALLBACK_ENABLED", "false")
	t.Setenv("hystrix.command.GetUser.circuitBreaker.forceOpen", "true")
	store := NewStore(NewEnvSource())
	defer store.Close()
	assert.Equal(t, 4, strings.Count(buf.String(), "no property has this name"), buf.String())
}

// etcdLike is a source whose every name is meant to be a property, like the etcd source.
type etcdLike struct{ *MemorySource }

func (etcdLike) OnlyProperties() bool { return true }

func TestPropertiesOnlySourceRefusesEveryOtherName(t *testing.T) {
	src := etcdLike{NewMemorySource()}
	store := NewStore(src)
	defer store.Close()
	err := src.Apply(map[string]string{
		"timeout":                                  "300",
		"command.GetUser.fallback.enabled":         "false",
		"hystrix.command.GetUser.fallback.enabled": "false",
	}, nil)
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	require.Len(t, refused.Entries, 2)
	assert.Equal(t, "command.GetUser.fallback.enabled", refused.Entries[0].Name)
	assert.Equal(t, "did you mean hystrix.command.GetUser.fallback.enabled?", refused.Entries[0].Hint)
	assert.Equal(t, "timeout", refused.Entries[1].Name)
	assert.Equal(t, "property names start with hystrix.command., hystrix.threadpool. or hystrix.collapser.", refused.Entries[1].Hint)
}

// TestUnchangedSourceReportsWhatIsRefusedNow: a Reload of an unchanged file, or a Set
// that changes nothing, returns the entries refused now, also by keys created since the
// last change.
func TestUnchangedSourceReportsWhatIsRefusedNow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	writeFile(t, path, "hystrix.command.Later."+timeoutName+"=-5\n")
	src, err := NewFileSource(path)
	require.NoError(t, err)
	defer src.Close()
	store := NewStore(src)
	defer store.Close()
	require.NoError(t, src.Reload(), "no key refuses it yet")
	_, err = store.Command("Later", nil)
	require.NoError(t, err)
	err = src.Reload()
	var refused *RefusedError
	require.True(t, errors.As(err, &refused), "%v", err)
	require.Len(t, refused.Entries, 1)
	assert.Equal(t, "hystrix.command.Later."+timeoutName, refused.Entries[0].Name)

	mem, other, _ := newTestStore(t)
	require.NoError(t, mem.Set("hystrix.command.Later."+timeoutName, "-5"))
	_, err = other.Command("Later", nil)
	require.NoError(t, err)
	assert.ErrorIs(t, mem.Set("hystrix.command.Later."+timeoutName, "-5"), ErrInvalidValue, "the same value, refused now")
}
