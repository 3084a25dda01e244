package doctest

import "testing"

// TestREADMECompiles compiles every Go block of the repository's README.
func TestREADMECompiles(t *testing.T) { AssertCompiles(t, "../../README.md", "../..") }
