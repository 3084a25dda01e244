// Command afex runs one call through afex/hystrix-go with a fallback, for the footprint
// comparison.
package main

import (
	"fmt"

	"github.com/afex/hystrix-go/hystrix"
)

func main() {
	v := 0
	err := hystrix.Do("K", func() error { v = 1; return nil }, func(error) error { v = -1; return nil })
	fmt.Println(v, err)
}
