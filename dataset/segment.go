package dataset

import "fmt"

// SegmentStarts returns the start rows k_j of the overlapping calibration
// segments of Park, Lee, Kuipers §III-A: segment j simulates N steps from
// row k_j and is compared with rows k_j+1 … k_j+N (eq. 22), so it needs rows
// up to k_j + N < rows. Starts are k_j = skip + j·stride, as many as fit.
// skip leaves rows out at the start (e.g. where a 5-point derivative lacks
// neighbours).
func SegmentStarts(rows, N, stride, skip int) ([]int, error) {
	if N < 1 || stride < 1 || skip < 0 {
		return nil, fmt.Errorf("dataset.SegmentStarts: N = %d, stride = %d and skip = %d must be ≥ 1, ≥ 1, ≥ 0", N, stride, skip)
	}
	if rows < skip+N+1 {
		return nil, fmt.Errorf("dataset.SegmentStarts: %d rows, need at least %d for one segment of %d steps", rows, skip+N+1, N)
	}
	var starts []int
	for k := skip; k+N < rows; k += stride {
		starts = append(starts, k)
	}
	return starts, nil
}

// StrideFor returns the stride that gives about count segments of N steps
// on rows rows (at least 1): the paper extracts M = 3,800 segments of N = 50
// from its 37,500-row log, a stride of about 10.
func StrideFor(rows, N, skip, count int) int {
	usable := rows - skip - N
	if count < 1 || usable <= count {
		return 1
	}
	return max(1, (usable+count/2)/count)
}
