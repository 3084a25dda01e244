package command

import (
	"github.com/rxhystrix/rxhystrix/config"
	"github.com/rxhystrix/rxhystrix/internal/budget"
)

// budgetKey names one budget of a runtime: the group that shares it (budget.group, or the
// command key) and its settings, so that a change of settings starts a fresh budget and
// keys of a group with other settings keep their own.
type budgetKey struct {
	group                                   string
	percent, minPerSecond, maxTokens, ratio int
}

// extra is the budget a key's extra attempts (retries, hedges) are taken from, as its
// retry and hedge stages hold it from their assembly: a group's is shared with the keys
// of the group (and so are their chains), a key's own (no budget.group) makes the chain
// the key's (owning) and is dropped from the runtime with the key.
type extra struct {
	b   budget.Budget // nil: budget.enabled is false
	own budgetKey     // the name of the key's own budget in the runtime; zero for a group's
}

// extraOf returns the budget of a key of shape k.
func extraOf(k shape) extra {
	p := k.props
	if !config.BudgetEnabled.In(p).Get() {
		return extra{}
	}
	key := budgetKeyOf(p.Key(), p)
	e := extra{b: k.rt.budgetOf(key)}
	if config.BudgetGroup.In(p).Get() == "" {
		e.own = key
	}
	return e
}

func (e extra) ownsKeyState() bool { return e.own != budgetKey{} }

// forget drops the key's own budget; a group's stays, as the group may have other keys.
func (e extra) forget(r *Runtime) {
	if e.ownsKeyState() {
		r.forgetShared(e.own)
	}
}

func budgetKeyOf(commandKey string, p *config.CommandProperties) budgetKey {
	k := budgetKey{group: config.BudgetGroup.In(p).Get(), percent: config.BudgetPercent.In(p).Get(),
		minPerSecond: config.BudgetMinPerSecond.In(p).Get(), maxTokens: config.BudgetMaxTokens.In(p).Get(), ratio: config.BudgetTokenRatio.In(p).Get()}
	if k.group == "" {
		k.group = "command:" + commandKey // a key's own budget is apart from any named group
	}
	return k
}

// budgetOf returns the runtime's budget of k, made on first use.
func (r *Runtime) budgetOf(k budgetKey) budget.Budget {
	b, _ := sharedOf(r, k, func() (budget.Budget, error) {
		if k.maxTokens > 0 {
			return budget.NewTokens(k.maxTokens, k.ratio), nil
		}
		return budget.NewRatio(k.percent, k.minPerSecond), nil
	})
	return b
}
