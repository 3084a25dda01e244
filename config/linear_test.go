//go:build !race

package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestParsePropertiesIsLinear: ten times the input takes about ten times as long, also
// for input made to be slow (long continued entries, escapes, blanks, separators). A
// parser that is quadratic in some input takes about a hundred times as long there; the
// rounds are repeated until one is below 40 times (bounded), so a busy machine does not
// fail it. Without -race, which distorts timings (make test-norace runs it).
func TestParsePropertiesIsLinear(t *testing.T) {
	const small = 256 << 10
	patterns := map[string]string{
		"continued empty lines":     "\\\n",
		"continued value":           "k=" + strings.Repeat("x\\\n", 1000) + "x\n",
		"unicode escapes":           "k=" + strings.Repeat(`\u0041`, 1000) + "\\\n",
		"escaped blanks":            strings.Repeat(`\ `, 1000) + "\\\n",
		"escaped separators":        "k" + strings.Repeat(`\=\:`, 1000) + "=v\n",
		"backslash runs":            "k=" + strings.Repeat(`\\`, 2000) + "\n",
		"trailing blanks":           "k=v" + strings.Repeat(" ", 1000) + "\n",
		"blank continuation lines":  strings.Repeat(" \t\f", 300) + "\\\n",
		"lone carriage returns":     "a=1\r",
		"comments with backslashes": "#" + strings.Repeat(`\`, 999) + "\n",
		"separators":                "k" + strings.Repeat("=:", 1000) + "\n",
		"distinct keys":             "", // below
	}
	input := func(name string, size int) string {
		if name == "distinct keys" {
			var b strings.Builder
			for i := 0; b.Len() < size; i++ {
				fmt.Fprintf(&b, "key.%d=%d\n", i, i)
			}
			return b.String()
		}
		p := patterns[name]
		return strings.Repeat(p, max(1, size/len(p)))
	}
	best := func(in string) time.Duration {
		d := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			_, _ = parseProperties(strings.NewReader(in), "linear.properties")
			d = min(d, time.Since(start))
		}
		return d
	}
	for name := range patterns {
		in, in10 := input(name, small), input(name, 10*small)
		ratio := 0.0
		for round := 0; round < 20; round++ {
			ratio = float64(best(in10)) / float64(max(best(in), time.Microsecond))
			if ratio < 40 {
				break
			}
		}
		t.Logf("%s: 10x input, %.1fx time", name, ratio)
		assert.Less(t, ratio, 40.0, "%s: not linear", name)
	}
}
