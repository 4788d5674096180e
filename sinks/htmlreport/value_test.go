package htmlreport

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValueCellObject: an object value (classification_report, as read back from a results
// JSON) shows its entries in sklearn's order — class ids by value, then accuracy and the
// averages — and each entry's statistics in sklearn's column order.
func TestValueCellObject(t *testing.T) {
	row := func(p, s float64) map[string]any {
		return map[string]any{"support": s, "f1-score": p, "recall": p, "precision": p}
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"report", map[string]any{"10": row(0.5, 1), "2": row(1, 2), "weighted avg": row(0.75, 3), "accuracy": 0.5, "macro avg": row(0.75, 3)},
			"{2: {precision: 1; recall: 1; f1-score: 1; support: 2}; 10: {precision: 0.5; recall: 0.5; f1-score: 0.5; support: 1}; " +
				"accuracy: 0.5; macro avg: {precision: 0.75; recall: 0.75; f1-score: 0.75; support: 3}; weighted avg: {precision: 0.75; recall: 0.75; f1-score: 0.75; support: 3}}"},
		{"empty", map[string]any{}, "{}"},
		{"number", 0.25, "0.25"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, valueCell(tt.v).Full)
		})
	}
}
