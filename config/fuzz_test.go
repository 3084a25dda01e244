package config

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets run in make test with a short budget (make fuzz).

func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"a=1\n", "\ufeffa = b\n", "# c\n! d\n\n", "k:v\\\n  w\n", "=x\n", "noequals\n",
		"a=1\r\nb=2\r\n", "x=\\\\\n", "last\\", strings.Repeat("y", 100) + "=z",
		`GET\ host\:80 = \ v\ `, "u=\\u00e9\\uD83D\\uDE00\r", `\#k=\t\n\\`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		values, err := parseProperties(strings.NewReader(in), "fuzz.properties")
		if err != nil {
			if pe, ok := err.(*ParseError); ok && (pe.Line < 1 || pe.Line > strings.Count(in, "\n")+strings.Count(in, "\r")+1) {
				t.Fatalf("line %d out of range: %v", pe.Line, err)
			}
			return
		}
		// What parsed writes back, by propertiesLine, as lines that parse the same,
		// unless a key or value is not UTF-8.
		var b strings.Builder
		for k, v := range values {
			if k == "" {
				t.Fatalf("an empty key in %q", in)
			}
			line, err := propertiesLine(k, v)
			if err != nil {
				if !errors.Is(err, errInexpressible) || utf8.ValidString(k) && utf8.ValidString(v) {
					t.Fatalf("%q=%q: %v", k, v, err)
				}
				delete(values, k)
				continue
			}
			b.WriteString(line + "\n")
		}
		again, err := parseProperties(strings.NewReader(b.String()), "again.properties")
		if err != nil || len(again) != len(values) {
			t.Fatalf("written back %q: %v, %d of %d entries", b.String(), err, len(again), len(values))
		}
		for k, v := range values {
			if again[k] != v {
				t.Fatalf("%q: %q became %q", k, v, again[k])
			}
		}
	})
}

func FuzzDuration(f *testing.F) {
	for _, seed := range []string{"300", "300ms", "1.5s", "-2", "1.5ms", "2147483648", "1h", " 7 ", "9223372036854775807ns", "soon", "6.6ms", "6600100ns"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, c := range []struct {
			codec[time.Duration]
			unit, precision time.Duration
		}{{millisCodec, time.Millisecond, time.Millisecond}, {minutesCodec, time.Minute, time.Minute},
			{waitCodec, time.Millisecond, time.Microsecond}} {
			d, err := c.parse(in)
			if err != nil {
				continue
			}
			if d%c.precision != 0 || d/c.unit > math.MaxInt32 || d/c.unit < math.MinInt32 {
				t.Fatalf("%q parsed to %v: not a whole number of %v within 32-bit %v", in, d, c.precision, c.unit)
			}
			for _, again := range []string{c.format(d), d.String()} {
				if d2, err := c.parse(again); err != nil || d2 != d {
					t.Fatalf("%q parsed to %v, %q to %v (%v)", in, d, again, d2, err)
				}
			}
		}
	})
}

func FuzzEnvName(f *testing.F) {
	for _, seed := range []string{
		"hystrix.command.GetUser.execution.timeout.enabled", "hystrix.command.Größe.fallback.enabled",
		"HYSTRIX_COMMAND_X_FALLBACK_ENABLE", "hystrix.threadpool..coreSize", "hystrix.collapser.", "",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		env := envName(name)
		if utf8.ValidString(name) && len(env) != utf8.RuneCountInString(name) {
			t.Fatalf("envName(%q) = %q: not one character per character", name, env)
		}
		for _, r := range env {
			if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' {
				t.Fatalf("envName(%q) = %q holds %q", name, env, r)
			}
		}
		if envName(env) != env {
			t.Fatalf("envName(%q) = %q is no fixed point", name, env)
		}
		hint, unknown := unknownName(name, nameRules{env: true})
		if hint != "" && !unknown {
			t.Fatalf("a hint %q for the known name %q", hint, name)
		}
	})
}

// TestHintsForLongNamesAreCheap: a hostile name costs no quadratic work.
func TestHintsForLongNamesAreCheap(t *testing.T) {
	name := "hystrix.command." + strings.Repeat("A.", maxLineLength/2)
	start := time.Now()
	_, unknown := unknownName(name, nameRules{})
	if !unknown || time.Since(start) > time.Second {
		t.Fatalf("unknown=%v after %v", unknown, time.Since(start))
	}
}
