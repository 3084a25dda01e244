package command

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
)

// The README's watchProperties adds a file to config.Default(); it reaches a runtime made
// by NewRuntime at the same moment it reaches the default runtime (the trap: the file set
// 123 ms and such a runtime kept the built-in 1 s).
func TestASourceAddedToDefaultReachesEveryRuntimeAtOnce(t *testing.T) {
	const key = "FileKey"
	path := filepath.Join(t.TempDir(), "hystrix.properties")
	write := func(ms string) {
		require.NoError(t, os.WriteFile(path, []byte("hystrix.command."+key+".execution.isolation.thread.timeoutInMilliseconds="+ms+"\n"), 0o600))
	}
	write("123")
	file, err := config.NewFileSource(path)
	require.NoError(t, err)
	defer file.Close()
	rt := NewRuntime(WithClock(clock.NewFake(time.Unix(0, 0))))
	defer rt.Close()
	remove, err := config.Default().AddSource(file)
	require.NoError(t, err)
	defer remove()

	timeouts := func() (runtime, dflt time.Duration) {
		p, err := rt.Config().Command(key, nil)
		require.NoError(t, err)
		d, err := Default().Config().Command(key, nil)
		require.NoError(t, err)
		return config.ExecutionTimeout.In(p).Get(), config.ExecutionTimeout.In(d).Get()
	}
	got, dflt := timeouts()
	assert.Equal(t, 123*time.Millisecond, dflt)
	assert.Equal(t, 123*time.Millisecond, got, "a runtime made before the file was added")

	write("456")
	require.NoError(t, file.Reload())
	got, dflt = timeouts()
	assert.Equal(t, []time.Duration{456 * time.Millisecond, 456 * time.Millisecond}, []time.Duration{got, dflt},
		"an edit reaches both when Reload returns")

	later := NewRuntime(WithClock(clock.NewFake(time.Unix(0, 0))))
	defer later.Close()
	k, err := Define[string](Setter{Runtime: later, CommandKey: key})
	require.NoError(t, err)
	_, err = k.New(value("v")).Execute(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 456*time.Millisecond, config.ExecutionTimeout.In(later.lookup(key).props).Get(), "and one made after")
}
