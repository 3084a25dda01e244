package dashboard

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUtilizationPercent(t *testing.T) {
	tests := []struct{ active, maximum, want int }{
		{0, 10, 0}, {3, 10, 30}, {1, 3, 33}, {10, 10, 100}, {12, 10, 100}, {1, 0, 0}, {1, -1, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, utilizationPercent(tt.active, tt.maximum), "%d of %d", tt.active, tt.maximum)
	}
}
