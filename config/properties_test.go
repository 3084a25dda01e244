package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseProperties(t *testing.T) {
	in := "# comment\n" +
		"  ! also a comment\n" +
		"\n" +
		"hystrix.command.default.fallback.enabled = false\n" +
		"\thystrix.command.A.execution.isolation.strategy:SEMAPHORE  \n" +
		"url = http://host:8080/x=y\n" +
		"empty.value =\n" +
		"list = a, \\\n" +
		"       b, \\\n" +
		"       c\n" +
		"path = C:\\\\dir\\\\\n" +
		"dup = 1\n" +
		"dup = 2\n" +
		"last = no newline \\"
	got, err := parseProperties(strings.NewReader(in), "app.properties")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"hystrix.command.default.fallback.enabled":       "false",
		"hystrix.command.A.execution.isolation.strategy": "SEMAPHORE",
		"url":         "http://host:8080/x=y",
		"empty.value": "",
		"list":        "a, b, c",
		"path":        `C:\dir\`,
		"dup":         "2",
		"last":        "no newline",
	}, got)
}

func TestParsePropertiesErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a=1\njust a line\n", `config: bad.properties:2: missing '=' in "just a line"`},
		{"# c\n\n = value\n", `config: bad.properties:3: empty key in "= value"`},
		{"a=1\nb \\\n  c\n", `config: bad.properties:2: missing '=' in "b c"`},
	} {
		_, err := parseProperties(strings.NewReader(tc.in), "bad.properties")
		var pe *ParseError
		require.True(t, errors.As(err, &pe), tc.in)
		assert.EqualError(t, err, tc.want)
		assert.Equal(t, "bad.properties", pe.File)
	}
}

func TestParsePropertiesByteOrderMark(t *testing.T) {
	got, err := parseProperties(strings.NewReader("\ufeffhystrix.command.default.fallback.enabled=false\nb=2\n"), "bom.properties")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"hystrix.command.default.fallback.enabled": "false", "b": "2"}, got)
	_, err = parseProperties(strings.NewReader("a=1\n\ufeffb=2\n"), "bom.properties")
	require.NoError(t, err, "only a mark at the start is skipped")
}

func TestParsePropertiesLongLine(t *testing.T) {
	long := "b=" + strings.Repeat("x", maxLineLength-2)
	got, err := parseProperties(strings.NewReader("a=1\n"+long+"\n"), "long.properties")
	require.NoError(t, err, "a line of maxLineLength bytes is read")
	assert.Len(t, got["b"], maxLineLength-2)

	_, err = parseProperties(strings.NewReader("a=1\n# two\n"+long+"x\nc=3\n"), "long.properties")
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.EqualError(t, err, "config: long.properties:3: line longer than 65536 bytes")
}

// TestParsePropertiesEscapes: the escapes of java.util.Properties, so that a key can
// hold what the format gives meaning to, like hystrixhttp's "GET host:port".
func TestParsePropertiesEscapes(t *testing.T) {
	for _, tc := range []struct{ in, key, value string }{
		{`hystrix.command.GET\ api.example.com\:8080.circuitBreaker.forceOpen=true`,
			"hystrix.command.GET api.example.com:8080.circuitBreaker.forceOpen", "true"},
		{`hystrix.command.GET api\:8080.fallback.enabled : false`, "hystrix.command.GET api:8080.fallback.enabled", "false"},
		{`a\=b\:c = d=e:f`, "a=b:c", "d=e:f"},
		{`\ lead\ and\ trail\  = \ both\ `, " lead and trail ", " both "},
		{`k = v\ ` + "  ", "k", "v "},
		{`k = \\`, "k", `\`},
		{`k = \\\ `, "k", `\ `},
		{`\#not\!a\ comment = \#`, "#not!a comment", "#"},
		{`tabs = a\tb\nc\rd\fe`, "tabs", "a\tb\nc\rd\fe"},
		{`other = \a\b\z\é`, "other", "abzé"},
		{`u = caf\u00e9 \u20ac \u20AC \uD83D\uDE00 \u0041\u0000`, "u", "café € € 😀 A\x00"},
		{"cont = a\\\n   b\\\n\tc", "cont", "abc"},
		{"cont\\\n  inued\\:key = v", "continued:key", "v"},
		{"bs = x\\\\\\\n  y", "bs", `x\y`},
	} {
		got, err := parseProperties(strings.NewReader(tc.in+"\n"), "esc.properties")
		require.NoError(t, err, tc.in)
		assert.Equal(t, map[string]string{tc.key: tc.value}, got, tc.in)
	}
}

func TestParsePropertiesEscapeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a=1\nb=\\u12G4\n", `config: e.properties:2: malformed \uXXXX escape \u12G4 in "b=\\u12G4"`},
		{"a=\\u12", `config: e.properties:1: malformed \uXXXX escape \u12 in "a=\\u12"`},
		{"a=\\uD83D!", `config: e.properties:1: \uD83D is half of a UTF-16 surrogate pair in "a=\\uD83D!"`},
		{"a=\\uDE00\\uD83D", `config: e.properties:1: \uDE00 is half of a UTF-16 surrogate pair in "a=\\uDE00\\uD83D"`},
		{"\\u00zz=1", `config: e.properties:1: malformed \uXXXX escape \u00zz in "\\u00zz=1"`},
		{"a\\=1\n", `config: e.properties:1: missing '=' in "a\\=1"`},
		{"\\ =1\n", ""},
		{"  \\\n  = 1\n", `config: e.properties:1: empty key in "= 1"`},
		{"k=" + strings.Repeat("x", 100), ""},
		{strings.Repeat("y", 100) + "\n", `config: e.properties:1: missing '=' in "` + strings.Repeat("y", 77) + `"...`},
	} {
		_, err := parseProperties(strings.NewReader(tc.in), "e.properties")
		if tc.want == "" {
			assert.NoError(t, err, tc.in)
			continue
		}
		var pe *ParseError
		require.True(t, errors.As(err, &pe), "%q: %v", tc.in, err)
		assert.EqualError(t, err, tc.want)
	}
}

// TestParsePropertiesLineEnds: "\n", "\r\n" and "\r" end lines, as in Java.
func TestParsePropertiesLineEnds(t *testing.T) {
	got, err := parseProperties(strings.NewReader("a=1\rb=2\r\nc=3\n# d=4\re=5\\\r  6\r\r\nf=7\r"), "ends.properties")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"a": "1", "b": "2", "c": "3", "e": "56", "f": "7"}, got)

	_, err = parseProperties(strings.NewReader("a=1\r\rb\r"), "ends.properties")
	assert.EqualError(t, err, `config: ends.properties:3: missing '=' in "b"`)
}

// TestPropertiesLine: what propertiesLine writes, parseProperties reads back, whatever
// the name and value hold; what no line can hold is an error naming it.
func TestPropertiesLine(t *testing.T) {
	line, err := propertiesLine("hystrix.command.GET api.example.com:8080.circuitBreaker.forceOpen", "true")
	require.NoError(t, err)
	assert.Equal(t, `hystrix.command.GET\ api.example.com\:8080.circuitBreaker.forceOpen=true`, line)

	for _, tc := range []struct{ name, value string }{
		{"#key", " value with: = signs "},
		{"!k=e:y\\", "\\"},
		{" \t\f\r\n", "\t\f\r\n "},
		{"ключ\u00a0\u2028\ufeff", "é😀\x00\x7f"},
		{"k", ""},
		{"long " + strings.Repeat("\u2028", maxLineLength/4), strings.Repeat("a ", maxLineLength)},
	} {
		line, err := propertiesLine(tc.name, tc.value)
		require.NoError(t, err)
		for l := range strings.SplitSeq(line, "\n") {
			assert.LessOrEqual(t, len(l), maxLineLength)
		}
		got, err := parseProperties(strings.NewReader(line+"\n"), "w.properties")
		require.NoError(t, err, line)
		assert.Equal(t, map[string]string{tc.name: tc.value}, got, line)
	}

	for _, tc := range []struct{ name, value, want string }{
		{"", "1", `config: : invalid value "1": cannot be written in a .properties file: the name is empty`},
		{"k\xff", "1", "config: k\xff: invalid value \"1\": cannot be written in a .properties file: the name is not UTF-8"},
		{"k", "\xff", `config: k: invalid value "\xff": cannot be written in a .properties file: the value is not UTF-8`},
	} {
		_, err := propertiesLine(tc.name, tc.value)
		assert.ErrorIs(t, err, errInexpressible, tc.name)
		assert.EqualError(t, err, tc.want)
		var pe *PropertyError
		require.True(t, errors.As(err, &pe))
		assert.Equal(t, tc.name, pe.Name)
	}
}
