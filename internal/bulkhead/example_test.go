package bulkhead_test

import (
	"errors"
	"fmt"

	"github.com/rxhystrix/rxhystrix/clock"
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/bulkhead"
	"github.com/rxhystrix/rxhystrix/isolation"
)

// job is a func as a bulkhead.Task.
type job func()

func (j job) Run() { j() }

func ExamplePool_SubmitTask() {
	store := config.NewStore()
	defer store.Close()
	pools := bulkhead.NewPoolRegistry(store, clock.System())
	defer pools.Close()

	pool, err := pools.Get("payments", config.ThreadPoolOverrides{"coreSize": "1"})
	if err != nil {
		panic(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	if err := pool.SubmitTask(job(func() { close(started); <-release })); err != nil {
		panic(err)
	}
	<-started

	err = pool.SubmitTask(job(func() {})) // the only worker is busy and there is no queue
	fmt.Println(errors.Is(err, isolation.ErrRejected))
	fmt.Println(err)
	g := pool.Gauges()
	fmt.Println(g.ActiveCount, g.PoolSize, g.TaskCount)
	close(release)
	// Output:
	// true
	// isolation: thread pool "payments" rejected the task: no free worker and the pool is at its maximum size (no queue)
	// 1 1 1
}

func ExampleSemaphore() {
	sem := bulkhead.NewSemaphore(config.Fixed("maxConcurrentRequests", 1))
	fmt.Println(sem.TryAcquire(), sem.TryAcquire(), sem.InUse())
	sem.Release()
	fmt.Println(sem.InUse())
	// Output:
	// true false 1
	// 0
}
