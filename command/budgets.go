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

// keyBudget is the budget of a key's properties at one version of them.
type keyBudget struct {
	b       budget.Budget // nil: budget.enabled is false
	key     budgetKey     // b's name in the runtime
	own     bool          // b is the key's own (no budget.group): forgotten with the key
	version uint64
}

// extraBudget returns the budget the key's extra attempts (retries, hedges) are taken
// from, nil when budget.enabled is false: one atomic load and a compare while the key's
// properties stay as they are.
func (ks *keyState) extraBudget() budget.Budget {
	version := ks.props.Version()
	if kb := ks.budget.Load(); kb != nil && kb.version == version {
		return kb.b
	}
	kb := &keyBudget{version: version}
	if p := ks.props; config.BudgetEnabled.In(p).Get() {
		kb.key, kb.own = budgetKeyOf(ks.info.CommandKey, p), config.BudgetGroup.In(p).Get() == ""
		kb.b = ks.rt.budgetOf(kb.key)
	}
	ks.budget.Store(kb)
	return kb.b
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

// forgetBudget drops the key's own budget when the key is forgotten (evicted for
// idleness); a group's budget stays, as the group may have other keys.
func (ks *keyState) forgetBudget() {
	if kb := ks.budget.Load(); kb != nil && kb.own {
		ks.rt.forgetShared(kb.key)
	}
}
