package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// propertiesFile writes lines to a .properties file and returns its FileSource.
func propertiesFile(t *testing.T, lines string) *FileSource {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o600))
	f, err := NewFileSource(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

const misspelt = "hystrix.command.default.execution.timeout.enable=false\n" +
	"hystrix.comand.GetUser.fallback.enabled=false\n" +
	"hystrix.command.default.circuitBreaker.errorThresholdPercentage=150\n" +
	"hystrix.command.default.fallback.enabled=false\n"

func TestAddSourceAppliesWhatItCanAndCheckListsTheRest(t *testing.T) {
	store := NewStore()
	defer store.Close()
	log := &errLog{}
	defer store.OnError(log.add)()
	props, err := store.Command("GetUser", nil)
	require.NoError(t, err)

	remove, err := store.AddSource(propertiesFile(t, misspelt))
	require.NoError(t, err, "not strict: added")
	defer remove()
	assert.False(t, FallbackEnabled.In(props).Get(), "the other entries apply")
	assert.Len(t, log.take(), 3, "each refused entry reported once")
	var refused *RefusedError
	require.ErrorAs(t, store.Check(), &refused)
	require.Len(t, refused.Entries, 3)
	assert.Equal(t, "hystrix.comand.GetUser.fallback.enabled", refused.Entries[0].Name)
	assert.Equal(t, "did you mean hystrix.command.GetUser.fallback.enabled?", refused.Entries[0].Hint)
	assert.ErrorIs(t, refused.Entries[1], ErrInvalidValue)
	assert.Equal(t, "did you mean hystrix.command.default.execution.timeout.enabled?", refused.Entries[2].Hint)
}

func TestStrictAddSourceAddsNothingItCannotApply(t *testing.T) {
	store := NewStore()
	defer store.Close()
	store.SetStrict(true)
	props, err := store.Command("GetUser", nil)
	require.NoError(t, err)

	_, err = store.AddSource(propertiesFile(t, misspelt))
	var refused *RefusedError
	require.ErrorAs(t, err, &refused, "the trap: a file full of misspelt names loaded and AddSource returned nil")
	assert.Len(t, refused.Entries, 3, "every entry it cannot apply, at once")
	assert.ErrorIs(t, err, ErrUnknownProperty)
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.True(t, FallbackEnabled.In(props).Get(), "not added: none of its entries applies")
	assert.NoError(t, store.Check(), "nor is it checked")

	_, err = store.AddSource(propertiesFile(t, "hystrix.command.default.fallback.enabled=false\n"))
	assert.NoError(t, err)
	assert.False(t, FallbackEnabled.In(props).Get())
}

func TestABadDefaultValueIsReportedOnceNotOncePerKey(t *testing.T) {
	mem, store, log := newTestStore(t)
	require.NoError(t, mem.Set("hystrix.command.default."+timeoutName, "1000ms -> 5s"))
	for _, key := range []string{"A", "B", "C"} {
		_, err := store.Command(key, nil)
		require.NoError(t, err)
	}
	assert.Len(t, log.take(), 1, "the trap: one warning per key")

	require.NoError(t, mem.Set("hystrix.command.default."+timeoutName, "300"))
	assert.Empty(t, log.take())
	err := mem.Set("hystrix.command.default."+timeoutName, "-5")
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Len(t, log.take(), 1, "a new bad value: once again")
	assert.Len(t, propertyErrors(store.Check()), 1)
}

func TestAMisspeltKeyIsReportedWhenTheKeyItMisspellsIsDefined(t *testing.T) {
	mem, store, log := newTestStore(t)
	require.NoError(t, mem.Apply(map[string]string{
		"hystrix.command.GetUsr." + timeoutName: "300",
		"hystrix.command.Other." + timeoutName:  "300",
		"hystrix.threadpool.Users.coreSize":     "4",
	}, nil))
	assert.Empty(t, log.take(), "no key is defined yet")

	_, err := store.Command("GetUser", nil)
	require.NoError(t, err)
	errs := log.take()
	require.Len(t, errs, 1, "the trap: a misspelt command key in a file was not reported at all")
	assert.ErrorIs(t, errs[0], ErrUnknownKey)
	assert.Equal(t, "config: hystrix.command.GetUsr."+timeoutName+` (value "300"): no command key GetUsr is defined (yet); `+
		"did you mean hystrix.command.GetUser."+timeoutName+"?", errs[0].Error())
	_, err = store.Command("GetUsers", nil)
	require.NoError(t, err)
	assert.Empty(t, log.take(), "once")

	_, err = store.ThreadPool("Users", nil)
	require.NoError(t, err)
	err = store.Check()
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "memory", refused.Source)
	require.Len(t, refused.Entries, 2)
	assert.Equal(t, "hystrix.command.GetUsr."+timeoutName, refused.Entries[0].Name)
	assert.Equal(t, "hystrix.command.Other."+timeoutName, refused.Entries[1].Name)
	assert.True(t, errors.Is(err, ErrUnknownKey) && !errors.Is(err, ErrInvalidValue))

	_, err = store.Command("Other", nil)
	require.NoError(t, err)
	require.NoError(t, mem.Apply(nil, []string{"hystrix.command.GetUsr." + timeoutName}))
	assert.NoError(t, store.Check())
}

func TestStrictCommandRefusesAKeyWhoseSourcesSetABadValue(t *testing.T) {
	mem, store, _ := newTestStore(t)
	store.SetStrict(true)
	require.NoError(t, mem.Apply(map[string]string{
		"hystrix.command.GetUser." + timeoutName:                          "5 s",
		"hystrix.command.GetUser.circuitBreaker.errorThresholdPercentage": "101",
	}, nil))
	_, err := store.Command("GetUser", nil)
	var refused *RefusedError
	require.ErrorAs(t, err, &refused)
	assert.Equal(t, "the sources of command key GetUser", refused.Source)
	assert.Len(t, refused.Entries, 2, "every entry it cannot apply, at once")
	assert.Empty(t, store.Commands(), "not held")

	require.NoError(t, mem.Set("hystrix.command.GetUser."+timeoutName, "5s"))
	require.NoError(t, mem.Apply(nil, []string{"hystrix.command.GetUser.circuitBreaker.errorThresholdPercentage"}))
	props, err := store.Command("GetUser", nil)
	require.NoError(t, err, "mended: defined")
	assert.Equal(t, 5*time.Second, ExecutionTimeout.In(props).Get())
}

func TestNewDefaultStoreFollowsTheSourcesAddedToDefault(t *testing.T) {
	const key = "FollowsDefault"
	first := NewMemorySource()
	require.NoError(t, first.Set("hystrix.command."+key+"."+timeoutName, "123"))
	removeFirst, err := Default().AddSource(first)
	require.NoError(t, err)
	defer removeFirst()

	store := NewDefaultStore()
	defer store.Close()
	props, err := store.Command(key, nil)
	require.NoError(t, err)
	assert.Equal(t, 123*time.Millisecond, ExecutionTimeout.In(props).Get(), "a source added before")

	later := NewMemorySource()
	require.NoError(t, later.Set("hystrix.command."+key+".fallback.enabled", "false"))
	own := NewMemorySource()
	require.NoError(t, own.Set("hystrix.command."+key+".fallback.enabled", "true"))
	removeOwn, err := store.AddSource(own)
	require.NoError(t, err)
	defer removeOwn()
	removeLater, err := Default().AddSource(later)
	require.NoError(t, err)
	assert.False(t, FallbackEnabled.In(props).Get(), "a source added to Default later, above the store's own")

	require.NoError(t, first.Set("hystrix.command."+key+"."+timeoutName, "456"))
	assert.Equal(t, 456*time.Millisecond, ExecutionTimeout.In(props).Get(), "a change, at once")
	removeLater()
	assert.True(t, FallbackEnabled.In(props).Get(), "removed with it")

	Default().SetStrict(true)
	func() {
		defer Default().SetStrict(false)
		_, err = store.AddSource(propertiesFile(t, misspelt))
		assert.Error(t, err, "strict as Default is")
	}()

	store.Close()
	last := NewMemorySource()
	require.NoError(t, last.Set("hystrix.command."+key+".circuitBreaker.forceOpen", "true"))
	removeLast, err := Default().AddSource(last)
	require.NoError(t, err)
	defer removeLast()
	assert.False(t, CircuitBreakerForceOpen.In(props).Get(), "a closed store follows no more")
}

func TestNearKey(t *testing.T) {
	for _, c := range []struct {
		a, b string
		near bool
	}{
		{"GetUser", "GetUser", true}, {"GetUser", "getuser", true}, {"GetUser", "GetUsr", true},
		{"GetUsr", "GetUser", true}, {"GetUser", "GetUsex", true}, {"GetUser", "GetUserX", true},
		{"GetUser", "XGetUser", true}, {"GetUser", "GteUser", false}, {"GetUser", "Get", false},
		{"", "a", true}, {"ab", "ba", false}, {"GET api1:80", "GET api2:80", true},
	} {
		assert.Equal(t, c.near, nearKey(c.a, c.b), "%q %q", c.a, c.b)
	}
}
