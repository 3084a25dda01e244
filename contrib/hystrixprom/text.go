package hystrixprom

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// labelString makes the text form of a label set, {name="value",...} in name order
// (the order a registry writes), its values escaped and made valid UTF-8. base is not
// needed: the string is made once per label set of a key.
func labelString(_ string, names, values []string) string {
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	var b strings.Builder
	size := 2 // {}
	for i := range names {
		size += len(names[i]) + len(values[i]) + 4 // ="",
	}
	b.Grow(size)
	b.WriteByte('{')
	for n, i := range idx {
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(names[i])
		b.WriteString(`="`)
		b.WriteString(valueEscaper.Replace(strings.ToValidUTF8(values[i], "\uFFFD")))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// appendValue appends v as the text format writes a sample value: as expfmt does,
// integers below a million in full (the common case, without strconv's float path), any
// other value as the shortest 'g' form, and NaN, +Inf, -Inf.
func appendValue(b []byte, v float64) []byte {
	switch {
	case v == 0:
		return append(b, '0') // -0 too
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case v == math.Trunc(v) && v > -1e6 && v < 1e6:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// acceptsGzip reports whether the request's Accept-Encoding accepts gzip: named with
// q > 0, or not named and * with q > 0.
func acceptsGzip(req *http.Request) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, h := range req.Header.Values("Accept-Encoding") {
		for c := range strings.SplitSeq(h, ",") {
			coding, params, _ := strings.Cut(c, ";")
			q := 1.0
			for p := range strings.SplitSeq(params, ";") {
				if k, v, ok := strings.Cut(p, "="); ok && strings.TrimSpace(k) == "q" {
					if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
						q = f
					}
				}
			}
			switch coding = strings.TrimSpace(coding); {
			case strings.EqualFold(coding, "gzip"):
				gzipQ = q
			case coding == "*":
				starQ = q
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
