package e2e

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill cmd's process when the thread that started it ends
// (chromedp starts Chromium from a thread that lives as long as the browser, so a test
// binary that dies takes Chromium with it).
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
