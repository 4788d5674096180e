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

// SumVectorState is implemented by states whose value is a function of a fixed-length
// vector of integer sums (for some configurations: VectorLen returns 0 for the others).
// The bootstrap then keeps its replicates as one block of vectors, updated in a tight loop,
// instead of one state per replicate.
type SumVectorState interface {
	State
	// VectorLen is the length of the vector, or 0 when the state's value needs more.
	VectorLen() int
	// AddVector folds ex into the receiver like Add(ex, 1) and writes ex's contribution to
	// the sums into dst (of length VectorLen). It reports false, writing nothing, when ex
	// contributes nothing. It retains neither ex nor dst.
	AddVector(ex *Example, dst []int64) bool
	// VectorResult is the value (without details) of a state of the receiver's metric whose
	// sums are v. It changes neither the receiver nor v.
	VectorResult(v []int64) Result
}
