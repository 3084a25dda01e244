package adaptive

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCriticalityFromTheContext(t *testing.T) {
	ctx := t.Context()
	assert.Equal(t, Critical, FromContext(ctx))
	assert.Equal(t, Sheddable, FromContext(WithCriticality(ctx, Sheddable)))
	_, given := Lookup(ctx)
	assert.False(t, given)
	got, given := Lookup(WithCriticality(ctx, Critical))
	assert.True(t, given, "given, even the default")
	assert.Equal(t, Critical, got)
	_, given = Lookup(WithCriticality(ctx, Criticality(NumCriticalities)))
	assert.False(t, given, "not a level")
	c, err := ParseCriticality(" critical-plus ")
	require.NoError(t, err)
	assert.Equal(t, CriticalPlus, c)
	assert.Equal(t, "CRITICAL_PLUS", c.String())
	_, err = ParseCriticality("urgent")
	assert.ErrorContains(t, err, `unknown criticality "urgent"`)
}
