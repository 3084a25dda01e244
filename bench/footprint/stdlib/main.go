// Command stdlib is the footprint baseline: a program that prints one line with fmt.
package main

import (
	"context"
	"fmt"
)

func main() { fmt.Println(context.Background()) }
