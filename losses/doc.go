// Package losses builds trajectory losses as graph pieces: the ground-truth
// loss (Luo et al. eq. 6), the spline closest-point loss (eq. 7) and their
// weighted sum (eq. 8) for pose trajectories, and the L1 velocity loss over
// short segments (Park, Lee, Kuipers eq. 22) for calibration logs. Each has a
// native float64 twin that its tests compare against.
//
// The closest point of eq. 7 is a native search (Spline): global over a
// bounding-volume hierarchy (Closest, ClosestWithin), or warm-started for a
// point an optimiser moves a little at a time (ClosestWarm, with a Warm per
// point), which gives the same answers from the segments near the last one
// and a certified clearance to all others.
//
// Every exclusion in both searches is exact, not a heuristic:
//
//   - a segment lies in its box and in its capsule (the convex hulls of its
//     Bézier control points lie in both), so a segment whose box or capsule
//     is no nearer than the best point found cannot beat it;
//   - on a segment, with t = h/H ∈ [0, 1] and q = P − c(u_i), the derivative
//     of the squared distance has the sign of the degree-5 polynomial
//     G(t) = (c(t) − c(u_i) − q)·c′(t), whose Bernstein coefficients are
//     β_k = A_k − q_x·X_k − q_y·Y_k (A, X, Y precomputed per segment). A
//     polynomial has no more roots in (0, 1) than its Bernstein coefficients
//     have sign changes, and the same parity, and β_0 = G(0), β_5 = G(1);
//     so all β_k > 0 puts the segment's minimum at its start knot, all < 0
//     at its end knot, one change from + to − at the nearer knot, and one
//     change from − to + at the single root of G, found by Newton's method
//     safeguarded by bisection in [0, H]. A β_k counts only when it is
//     farther from zero than a bound of its rounding; otherwise (and for
//     two or more changes) the segment is searched as before, on five
//     samples and by Newton's method;
//   - the signs cannot change while P stays within ρ = min_k (|β_k| −
//     tol)/|(X_k, Y_k)| of the point where they were found, so a warm search
//     reuses the shape of the answer's segment there without a test;
//   - a distance changes by at most the move of P, so a segment's exact
//     minimum d at a point C bounds it by d − |P − C| at P.
//
// A warm search starts Newton's method from the last answer moved by the
// implicit derivative ∂U/∂P (Closest.DParam) and stops after a step whose
// error estimate |g″|·s²/(2g′) is below the tolerance: one evaluation of the
// cubic when P moved little. Searched from different starts, the warm and
// the exhaustive answers agree to Newton's tolerance (1e-13 of the
// segment's parameter length), not always to the last bit; the same query
// twice in a row gets the same bits.
package losses
