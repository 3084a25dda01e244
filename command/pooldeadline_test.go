package command

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rxhystrix/rxhystrix/config"
)

// slowPoolSource is a config source that takes delay to answer for thread-pool
// properties, as a remote source may when a pool is made.
type slowPoolSource struct{ delay time.Duration }

func (s slowPoolSource) Get(name string) (string, bool) {
	if strings.HasPrefix(name, "hystrix.threadpool.") {
		time.Sleep(s.delay)
	}
	return "", false
}

func (slowPoolSource) Names() []string { return nil }

func (slowPoolSource) Subscribe(func() error) func() { return func() {} }

// The timeout of a THREAD execution can fire before its pool stage has suspended the chain
// (here the pool is slow to make; under load the goroutine may just be descheduled). The
// timer must still resume the caller with the fallback, and the timer's goroutine must not
// race with the pool stage (the soak found both: a data race, and a caller left waiting).
func TestTimeoutBeforeThePoolStageResumesTheCaller(t *testing.T) {
	store := config.NewStore(slowPoolSource{delay: 100 * time.Millisecond})
	defer store.Close()
	rt := NewRuntime(WithConfig(store)) // the real clock: the deadline fires on a timer goroutine
	defer rt.Close()
	done := make(chan error, 1)
	go func() {
		_, err := New(Setter{Runtime: rt, CommandKey: "Slow", Properties: config.Set(
			config.ExecutionIsolationStrategy.Of(config.Thread), config.ExecutionTimeout.Of(10*time.Millisecond)),
		}, value("v")).WithFallback(fallbackValue("fb")).Execute(context.Background())
		done <- err
	}()
	select {
	case err := <-done:
		assert.NoError(t, err, "the fallback answers the timeout")
	case <-time.After(5 * time.Second):
		t.Fatal("the caller was never resumed: the timeout fired before the pool stage suspended the chain")
	}
}
