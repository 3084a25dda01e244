// Command cep21 runs one call through a cep21/circuit circuit with Hystrix's opener and
// closer and a fallback, for the footprint comparison.
package main

import (
	"context"
	"fmt"

	"github.com/cep21/circuit/v4"
	"github.com/cep21/circuit/v4/closers/hystrix"
)

func main() {
	m := circuit.Manager{DefaultCircuitProperties: []circuit.CommandPropertiesConstructor{(&hystrix.Factory{}).Configure}}
	v := 0
	err := m.MustCreateCircuit("K").Execute(context.Background(),
		func(context.Context) error { v = 1; return nil },
		func(context.Context, error) error { v = -1; return nil })
	fmt.Println(v, err)
}
