// Package hystrixtest tests code that runs rxhystrix commands in virtual time: a
// command.Runtime on a clock.Fake, scripted dependencies to give the commands as their
// run, a Recorder of what every execution did, and a clock that moves until the work in
// flight is done and the metrics have caught up. A breaker's whole story, seconds of
// failures, a sleep window and a trial, runs in milliseconds and the same every time.
//
//	k := hystrixtest.New()                            // a Runtime on a fake clock, a Recorder on its hooks
//	defer k.Close()
//	users := hystrixtest.NewDependency(k, "Ada",      // a run that fails for 2 s, then answers
//		hystrixtest.Until(2*time.Second, hystrixtest.Fail(errDown), hystrixtest.OK()))
//	getUser, err := command.Define[string](command.Setter{Runtime: k.Runtime(), CommandKey: "GetUser", ...})
//	for range 800 {                                   // 100 calls a second for 8 s
//		getUser.New(users.Run).WithFallback(anonymous).Execute(ctx)
//		k.Advance(10 * time.Millisecond)
//	}
//	k.AdvanceUntilQuiet()                             // waits over, buckets closed, metrics flushed
//	k.Recorder().ExpectRuns(t, "GetUser",             // what each call did, folded
//		"[FAILURE, FALLBACK_SUCCESS] x50",
//		"[SHORT_CIRCUITED, FALLBACK_SUCCESS] x500",
//		"[SUCCESS] x250")
//
// # Data flow
//
//	test ──┬─ direct calls (one caller) ─────────────┐
//	       └─ Kit.Go(call): callers in flight ───────┤
//	                                                 ▼
//	          command ─▶ Dependency.Run ─▶ Script.Answer(call n, elapsed) ─▶ value, error, panic
//	                                          │ latency or hang: a wait on the fake clock
//	                                          ▼
//	          direct call: the call moves the clock itself, to its end or to its
//	                       context's deadline, whichever is first
//	          Go caller:   the call parks; Kit.Advance moves the clock from one wake-up or
//	                       deadline to the next and lets the callers run (Settle) at each
//
//	clock.Fake ─▶ timers fire inside Advance: timeouts, breaker sleep windows, metrics rolls
//	AdvanceUntilQuiet ─▶ past the bucket in progress ─▶ metrics.Registry.Flush ─▶ counts
//
//	every hook call + every event the notifier is told of + breaker transitions
//	  ─▶ Recorder: Executions, Runs, HookCalls, Transitions, Expect*
//
// # Time
//
// The kit's clock starts at a whole second (New; NewAt for another start), so its
// buckets, which are aligned to the clock, start with it; Elapsed is the time since the
// start, and every time the Recorder shows is Elapsed. Nothing moves the clock but the
// test: Kit.Advance, Kit.AdvanceUntilQuiet, and a scripted call's latency. Close the kit
// at the end of the test: it ends the callers' contexts and closes the Runtime.
//
// A call made on the test's goroutine has no one else to move the clock, so a scripted
// latency moves it itself: to the end of the latency or, if the command's timeout ends the
// call first, to the deadline, where the call returns the context's error as a real call
// that honours its context would. A hang moves it to the deadline; with none (timeouts
// disabled) it waits for the caller's context. With several calls in flight, make each one
// with Kit.Go and the context it passes: its scripted calls wait for Kit.Advance instead,
// which stops at each wake-up and deadline in turn, so every caller runs at the virtual
// time it would in real time; Kit.Sleep paces a caller. Settle waits, without moving the
// clock, until every caller of Go has returned or waits in a scripted call or Sleep (Go
// then Settle starts callers in a known order); a caller that waits on anything else (a
// collapser's batch, a channel) makes it panic after 10 s without progress (SetStuckAfter
// changes it), and so does a caller's own panic, raised again on the test's goroutine.
// Under THREAD isolation with interruptOnTimeout=false a caller gets its fallback at the
// timeout while its run still waits; Settle cannot see that hand-over and may move the
// clock on before the caller has read it.
//
// Context deadlines of real time (context.WithTimeout) mean nothing on the fake clock: a
// deadline more than 24 hours ahead of the kit's clock is taken for one and ignored.
//
// # Metrics
//
// Counts move when a bucket closes: right after a call, and after Flush, they read 0
// until the clock passes the end of the rolling-stats bucket (1 s) and, for health counts
// and so the breaker, the health snapshot (500 ms). AdvanceUntilQuiet moves the clock past
// the bucket in progress of every key's rolling stats and health snapshots, then flushes,
// so every call made before it is counted. Latency percentiles move once per
// rollingPercentile bucket (10 s by default): advance past it when a test reads them.
//
// # Scripts
//
// A Script decides each call's Answer from the call's number and the time since the
// Dependency was made: an Answer itself (every call alike), Sequence (per call), Until (by
// time) and Random (at rates, from a seed: the same answers in every run). Answers are OK,
// Fail, Panic and Hang, each with After for a latency.
//
// # The Recorder
//
// New installs a Recorder on the Runtime's hooks (after any hook and notifier already
// there) and on its breaker transitions. It numbers each execution in OnStart and gathers
// the events the notifier is told of into that execution, so an execution's events stay
// together when executions overlap. A cache hit, which has no OnStart, is an execution of
// its own with the events its request log entry shows: those of the execution it replays,
// then RESPONSE_FROM_CACHE ("[TIMEOUT, FALLBACK_SUCCESS, RESPONSE_FROM_CACHE]"), so runs
// of hits fold as the request log folds them; with requestLog.enabled=false the Recorder
// cannot tell what a hit replays and shows "[RESPONSE_FROM_CACHE]" (and hits of one key in
// one request context that finish together, replaying different executions, may swap
// their events). Runs folds
// consecutive executions of a key with the same events, as the request log folds repeated
// events: "[FAILURE, FALLBACK_SUCCESS] x188". Transitions are delivered on the breaker
// registry's goroutine; ExpectTransitions waits for them.
//
// A failed Expect method reports one summary line first (where the lists first differ,
// what each has there, how long each is), then at most 16 lines of each list from just
// before that place: a screenful, however many executions the test made.
package hystrixtest
