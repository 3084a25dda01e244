package hystrixtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/hystrixtest"
	"github.com/rxhystrix/rxhystrix/internal/doctest"
	"github.com/rxhystrix/rxhystrix/metrics"
)

func TestGetUserFallsBackWhileTheServiceIsDown(t *testing.T) {
	k := hystrixtest.New() // a Runtime on a fake clock, with a Recorder on its hooks
	defer k.Close()
	getUser, err := command.Define[string](command.Setter{
		Runtime:    k.Runtime(), // where the code under test takes its Runtime
		CommandKey: "GetUser",
		GroupKey:   "UserService",
		Properties: config.Set(config.ExecutionTimeout.Of(300 * time.Millisecond)),
	})
	if err != nil {
		t.Fatal(err)
	}
	// The user service fails for 2 s, then answers "Ada".
	users := hystrixtest.NewDependency(k, "Ada",
		hystrixtest.Until(2*time.Second, hystrixtest.Fail(errors.New("down")), hystrixtest.OK()))
	anonymous := func(context.Context, error) (string, error) { return "anonymous", nil }

	for range 800 { // 100 calls a second for 8 s of virtual time
		_, _ = getUser.New(users.Run).WithFallback(anonymous).Execute(context.Background())
		k.Advance(10 * time.Millisecond)
	}
	k.AdvanceUntilQuiet() // past the bucket in progress, flushed: no count reads 0

	k.Recorder().ExpectRuns(t, "GetUser",
		"[FAILURE, FALLBACK_SUCCESS] x50",          // until the health snapshot at 500 ms
		"[SHORT_CIRCUITED, FALLBACK_SUCCESS] x500", // the 5 s sleep window
		"[SUCCESS] x250")                           // the trial closed it again
	k.Recorder().ExpectTransitions(t, "GetUser",
		"CLOSED -> OPEN at 500ms", "OPEN -> HALF_OPEN at 5.5s", "HALF_OPEN -> CLOSED at 5.5s")
	if n := k.Runtime().Metrics().Command("GetUser").CumulativeCount(metrics.ShortCircuited); n != 500 {
		t.Errorf("%d short circuits counted, want 500", n)
	}
}

// TestReadmeShowsTheKit keeps the README's test of the kit identical to the one that runs
// here. It comes after that test: AssertShows takes the first occurrence of the name.
func TestReadmeShowsTheKit(t *testing.T) {
	doctest.AssertShows(t, "../README.md", "readme_test.go", "func TestGetUserFallsBackWhileTheServiceIsDown(")
}
