package collapser_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/rxhystrix/rxhystrix/collapser"
	"github.com/rxhystrix/rxhystrix/command"
	"github.com/rxhystrix/rxhystrix/config"
)

// Three concurrent lookups of user names become one batch command, which runs behind
// the breaker, isolation, timeout and fallback of command "GetUsers".
func Example() {
	rt := command.NewRuntime()
	defer rt.Close()

	getUsers := command.Setter{Runtime: rt, CommandKey: "GetUsers"}
	users, err := collapser.New(
		collapser.Setter{
			Runtime:      rt,
			CollapserKey: "GetUser",
			Scope:        collapser.GlobalScope,
			Properties:   config.CollapserOverrides{"maxRequestsInBatch": "3", "timerDelayInMilliseconds": "1000"},
		},
		collapser.Batch[int, string, map[int]string]{
			Command: func(reqs []*collapser.Request[int, string]) collapser.Command[map[int]string] {
				ids := collapser.Arguments(reqs)
				return command.New(getUsers, func(ctx context.Context) (map[int]string, error) {
					fmt.Println("one backend call for", len(ids), "users")
					names := map[int]string{}
					for _, id := range ids {
						names[id] = strings.Repeat("x", id) // the backend's answer
					}
					return names, nil
				})
			},
			MapResponse: func(names map[int]string, reqs []*collapser.Request[int, string]) error {
				for _, r := range reqs {
					r.SetResponse(names[r.Argument()])
				}
				return nil
			},
		})
	if err != nil {
		panic(err)
	}

	got := make([]string, 3)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i], _ = users.Execute(context.Background(), i+1) })
	}
	wg.Wait()
	fmt.Println(got)
	// Output:
	// one backend call for 3 users
	// [x xx xxx]
}
