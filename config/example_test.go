package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rxhystrix/rxhystrix/config"
)

func ExampleStore_Command() {
	dynamic := config.NewMemorySource()
	store := config.NewStore(dynamic)
	defer store.Close()

	props, err := store.Command("GetUser", config.Overrides{
		"execution.isolation.thread.timeoutInMilliseconds": "500",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(config.ExecutionTimeout.In(props).Get()) // set in code

	dynamic.Set("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds", "250")
	fmt.Println(config.ExecutionTimeout.In(props).Get()) // dynamic key value beats code

	err = dynamic.Set("hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds", "soon")
	fmt.Println(config.ExecutionTimeout.In(props).Get()) // invalid: previous value stays
	fmt.Println(err)

	for _, s := range props.Settings()[:2] {
		fmt.Println(s.FullName, "=", s.Value)
	}
	// Output:
	// 500ms
	// 250ms
	// 250ms
	// config: memory: refused hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds: invalid value "soon": not a duration (want whole milliseconds, e.g. 300, or Go syntax, e.g. 300ms)
	// hystrix.command.GetUser.execution.isolation.strategy = THREAD
	// hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds = 250
}

// The typed form: every property has a Key, so a misspelt name does not compile, and
// values have their Go types. Set gathers them into Overrides, the string form that
// files, the environment and etcd use too.
func ExampleSet() {
	inCode := config.Set(
		config.ExecutionIsolationStrategy.Of(config.Semaphore),
		config.ExecutionTimeout.Of(300*time.Millisecond),
		config.CircuitBreakerErrorThresholdPercentage.Of(25),
	)
	fmt.Println(inCode)

	props, err := config.NewStore().Command("GetUser", inCode)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(config.ExecutionIsolationStrategy.In(props).Get(), config.ExecutionTimeout.In(props).Get(),
		config.CircuitBreakerErrorThresholdPercentage.In(props).Get())
	// Output:
	// map[circuitBreaker.errorThresholdPercentage:25 execution.isolation.strategy:SEMAPHORE execution.isolation.thread.timeoutInMilliseconds:300ms]
	// SEMAPHORE 300ms 25
}

// Store.Command checks values set in code where a command is defined, so that a bad
// definition fails at once instead of on every execution.
func ExampleStore_Command_invalid() {
	store := config.NewStore()
	defer store.Close()
	_, err := store.Command("GetUser", config.Overrides{
		"execution.timeout.enable":                         "false",
		"execution.isolation.thread.timeoutInMilliseconds": "-300ms",
	})
	fmt.Println(err)
	// Output:
	// config: unknown property hystrix.command.GetUser.execution.timeout.enable (set in code) (value "false"); did you mean "execution.timeout.enabled"?
	// config: hystrix.command.GetUser.execution.isolation.thread.timeoutInMilliseconds (set in code): invalid value "-300ms": must be > 0
}

// A second definition of a key does not change it (the first wins, as in Hystrix);
// Diff tells what it would have changed.
func ExampleOverrides_Diff() {
	first := config.Set(config.ExecutionTimeout.Of(300 * time.Millisecond))
	second := config.Overrides{"execution.isolation.thread.timeoutInMilliseconds": "3000"}
	fmt.Println(first.Diff(second))
	// Output:
	// [execution.isolation.thread.timeoutInMilliseconds: 300 -> 3000]
}

// A .properties file joins the process-wide store; the file source watches the file, so
// an edit applies within a second without a Reload.
func ExampleStore_AddSource() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "hystrix.properties")
	os.WriteFile(path, []byte("hystrix.command.Example.execution.isolation.thread.timeoutInMilliseconds=2s\n"), 0o600)

	file, err := config.NewFileSource(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	remove, err := config.Default().AddSource(file) // below DefaultSource and the environment
	if err != nil {
		fmt.Println(err)
		return
	}
	defer remove()

	props, _ := config.Default().Command("Example", nil)
	fmt.Println(config.ExecutionTimeout.In(props).Get())
	// Output:
	// 2s
}

// At run time, e.g. from an admin endpoint, a typed key sets a property in a dynamic
// source, for one key or at the default level of every key. Here the source is a Store's
// own; the process-wide one is config.DefaultSource().
func ExampleKey_SetIn() {
	src := config.NewMemorySource()
	store := config.NewStore(src)
	defer store.Close()
	props, _ := store.Command("GET api.example.com:8080", nil)

	config.ExecutionTimeout.SetIn(src, "GET api.example.com:8080", 300*time.Millisecond)
	config.CircuitBreakerForceOpen.SetDefaultIn(src, true)
	fmt.Println(config.ExecutionTimeout.In(props).Get(), config.CircuitBreakerForceOpen.In(props).Get())
	fmt.Println(src.Names())

	fmt.Println(config.ExecutionTimeout.SetIn(src, "GET api.example.com:8080", 1500*time.Microsecond))
	fmt.Println(config.ExecutionTimeout.In(props).Get())
	// Output:
	// 300ms true
	// [hystrix.command.GET api.example.com:8080.execution.isolation.thread.timeoutInMilliseconds hystrix.command.default.circuitBreaker.forceOpen]
	// config: hystrix.command.GET api.example.com:8080.execution.isolation.thread.timeoutInMilliseconds: invalid value "1.5ms": not a whole number of milliseconds
	// 300ms
}
