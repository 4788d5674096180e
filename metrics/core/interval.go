package core

// Interval is the confidence interval of a metric value (statistics.md §1). For a scalar
// value Low, High and Stderr are float64; for a per-class value they are []float64 of the
// same length (NaN where every replicate of that component was undefined). A Result whose
// value has no interval (a confusion matrix, an undefined value) has a nil *Interval.
type Interval struct {
	Low, High, Stderr any
	Level             float64
	Method            string
	Resamples         int
	Seed              uint64
	// Undefined counts the replicates whose value was undefined; they are left out.
	Undefined int
	// Mean and HalfWidth are sacrebleu's μ ± half-width (method sacrebleu only).
	Mean, HalfWidth *float64
}

// ReplicaAdder is implemented by states that fold one example into many states of their
// metric at once (the bootstrap's replicates), deriving what the example contributes only
// once. AddReplicas has exactly the effect of states[b].Add(ex, weights[b]) for every b with
// weights[b] > 0; the receiver itself is not changed. It retains neither ex nor weights.
type ReplicaAdder interface {
	AddReplicas(ex *Example, states []State, weights []int64)
}
