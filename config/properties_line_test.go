package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// propertiesLine is the inverse of parseProperties, for the tests: the round trip of any
// entry through a written line and the parser.

// errInexpressible matches (errors.Is) a *PropertyError about a name or value that no
// .properties line can hold: an empty name, or one that is not valid UTF-8.
var errInexpressible = errors.New("cannot be written in a .properties file")

// propertiesLine returns the .properties line that parseProperties (and
// java.util.Properties) read as exactly name=value, with the escapes it needs: blanks,
// '=', ':' and backslashes in the name, a leading '#' or '!', blanks at either end of
// the value, control and other non-printing characters (\t \n \r \f, \uXXXX). A line
// that would be longer than maxLineLength continues on the next (a backslash before
// the line break). The error is a *PropertyError matching errInexpressible for an empty
// name, or a name or value that is not valid UTF-8.
func propertiesLine(name, value string) (string, error) {
	switch {
	case name == "":
		return "", &PropertyError{Name: name, Value: value, Err: fmt.Errorf("%w: the name is empty", errInexpressible)}
	case !utf8.ValidString(name):
		return "", &PropertyError{Name: name, Value: value, Err: fmt.Errorf("%w: the name is not UTF-8", errInexpressible)}
	case !utf8.ValidString(value):
		return "", &PropertyError{Name: name, Value: value, Err: fmt.Errorf("%w: the value is not UTF-8", errInexpressible)}
	}
	w := lineWriter{}
	for i, r := range name {
		w.rune(r, true, i == 0 || i == len(name)-utf8.RuneLen(r))
	}
	w.b.WriteByte('=')
	w.n++
	for i, r := range value {
		w.rune(r, false, i == 0 || i == len(value)-utf8.RuneLen(r))
	}
	return w.b.String(), nil
}

// lineWriter writes the escaped characters of one entry, breaking the line before it
// grows longer than maxLineLength.
type lineWriter struct {
	b strings.Builder
	n int // bytes in the current line
}

// rune writes r as a character of the key or of the value; edge says it is the first
// or the last one.
func (w *lineWriter) rune(r rune, key, edge bool) {
	var piece string
	switch {
	case r == '\\':
		piece = `\\`
	case r == '\t':
		piece = `\t`
	case r == '\n':
		piece = `\n`
	case r == '\r':
		piece = `\r`
	case r == '\f':
		piece = `\f`
	case r == ' ' && (key || edge), key && strings.ContainsRune("=:#!", r):
		piece = `\` + string(r)
	case !strconv.IsPrint(r):
		for _, u := range utf16.AppendRune(nil, r) {
			piece += fmt.Sprintf(`\u%04X`, u)
		}
	default:
		piece = string(r)
	}
	if w.n+len(piece) > maxLineLength-1 { // room for the continuation backslash
		w.b.WriteString("\\\n")
		w.n = 0
		if r == ' ' {
			piece = `\ ` // a continuation line's leading blanks are dropped
		}
	}
	w.b.WriteString(piece)
	w.n += len(piece)
}
