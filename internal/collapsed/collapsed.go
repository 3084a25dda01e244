// Package collapsed carries the one call from package collapser into package command
// that is no part of command's API: marking a batch command with the number of requests
// it serves (COLLAPSED x n in its events, metrics and request log).
package collapsed

// Mark marks cmd as the command of a batch of n requests. Package command sets it when
// it is initialised, to mark its commands; any other cmd is left alone. A program that
// hands a collapser a *command.Command has initialised package command.
var Mark = func(cmd any, n int) {}
