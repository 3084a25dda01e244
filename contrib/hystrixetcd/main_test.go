package hystrixetcd

import (
	"testing"

	"go.uber.org/goleak"
)

// runAsInstance, when set (by the e2e suite), runs the test binary as an instance of a
// fleet instead of the tests when its environment asks for one, and reports whether it
// did.
var runAsInstance func() bool

func TestMain(m *testing.M) {
	if runAsInstance != nil && runAsInstance() {
		return
	}
	goleak.VerifyTestMain(m)
}
