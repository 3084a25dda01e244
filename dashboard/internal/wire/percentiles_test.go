package wire

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercentilesJSON(t *testing.T) {
	p := Percentiles{0, 1, 2, 3, 4, 5, 6, 7, 8}
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Equal(t, `{"0":0,"25":1,"50":2,"75":3,"90":4,"95":5,"99":6,"99.5":7,"100":8}`, string(b))

	var back Percentiles
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, p, back)
}

func TestBatchSizesJSON(t *testing.T) {
	s := BatchSizes{1, 2, 3, 4, 5, 6, 7, 8}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"25":1,"50":2,"75":3,"90":4,"95":5,"99":6,"99.5":7,"100":8}`, string(b))

	var back BatchSizes
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, s, back)
}

func TestPercentilesUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, in string
		into     any
		want     string
	}{
		{"unknown key", `{"0":1,"42":2}`, new(Percentiles), `unknown percentile key "42"`},
		{"no 0 in batch sizes", `{"0":1}`, new(BatchSizes), `unknown percentile key "0"`},
		{"not an object", `[1,2]`, new(Percentiles), "cannot unmarshal"},
		{"not an integer", `{"0":1.5}`, new(Percentiles), "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.ErrorContains(t, json.Unmarshal([]byte(tt.in), tt.into), tt.want)
		})
	}
}

func TestMissingPercentileKeysReadAsZero(t *testing.T) {
	p := Percentiles{9, 9, 9, 9, 9, 9, 9, 9, 9}
	require.NoError(t, json.Unmarshal([]byte(`{"99.5":4}`), &p))
	assert.Equal(t, Percentiles{7: 4}, p)
}
