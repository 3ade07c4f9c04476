// Package terra is the steady-turn terramechanic model of a skid-steered
// robot of Ordonez et al. §2.3 (eqs. 4–14), its power and energy (eqs.
// 25–26), the minimum turn radius, and the identification of the surface
// [μ_o μ_i K] from torques (§2.3) or from a learned network (eq. 24).
//
// The torque of each side in a steady turn is eq. 4 without the inertial
// term, τ = C(q̇) + G(q): r times the tractive force of eqs. 6–7, the shear
// stress τ_ss = p·μ·(1 − e^{−ε/K}) (eq. 5) integrated over the two contact
// patches of the side against the direction of the sliding velocity (eqs.
// 11–12), plus the rolling and drive-train resistance, plus eq. 14's pull of
// a slope. The model is written once (model.go) over an arithmetic that is
// either plain float64 (TorquesValue, the native model) or a forward-mode
// dual number carrying the derivatives with respect to μ_o, μ_i, K, the nine
// slip coefficients and the two commands (Torques); tests pin the latter to
// central differences of the former. It is not a step of package dyn: a
// steady turn has no state to step, and its turn-centre shift is the root of
// an equation (solved natively, differentiated by the implicit function
// theorem).
//
// The paper leaves the details to its reference [2]; this package completes
// them with the standard steady-turn formulation (Wong and Chiang 2001; Yu
// et al. 2010). Assumptions:
//
//   - Kinematics: the actual forward speed v and yaw rate Ω come from the
//     slip-calibrated model (eqs. 2–3, coefficients a11..a33); the wheel
//     speeds from the inverse of the nominal model (eq. 1), on the
//     effective rolling radius r·(1 + a11): the slip of a straight run is a
//     radius calibration (a wheel transmitting no force cannot slip), so a
//     straight line costs the rolling resistance alone. The lateral slip
//     coefficients a21..a23 do not enter (their gradient is zero): the
//     lateral velocity of the CG is S_o·Ω, fixed by the balance below.
//   - Geometry (Fig. 5): y forward and x away from the turn centre in a CCW
//     turn; a CW turn is its mirror image (C_x changes sign; inner and outer
//     are the right and left sides; μ_i stays with the inner side, so left
//     and right torques jump slightly at ω_c = 0 when μ_o ≠ μ_i).
//   - Shear displacement (eqs. 8–10): a tread point touches down at the
//     patch's entry edge y_e (the front edge when the wheel turns forwards,
//     the rear edge when backwards) and stays in contact for t = (y_e − y)/(r·ω),
//     while the robot turns by φ = Ω·t. Eq. 9's constant term is read as that
//     entry edge (so that ε = 0 where the tread touches down; the printed
//     "−l/2 − C_y − S_o" is the rear patch's). The products R″·sin φ and
//     R″·(cos φ − 1) are evaluated as v·t·sin(φ)/φ and v·t·(cos φ − 1)/φ,
//     finite on a straight line. |r·ω| is kept ≥ 1e-4 m/s (a wheel at rest
//     under a moving patch saturates its stress).
//   - Pressure: uniform over each patch, from the static load split by the
//     CG offsets (C_x laterally, C_y longitudinally), W·cos θ on a slope,
//     plus the centripetal load transfer m·v·Ω·h/B from the inner to the
//     outer side.
//   - Turn-centre shift S_o (Fig. 5): the root of the lateral force balance
//     Σ friction_x + m·v·Ω + gravity_x = 0 on [−l/2, l/2] (regula falsi); its
//     derivative by the implicit function theorem. Longitudinal and yaw
//     balances are not imposed: the slip model supplies the motion.
//   - Sliding direction: |V| is regularised by 1e-6 m/s and ε by 1e-9 m,
//     so the integrand is smooth where a point does not slide.
//   - Resistance F_r = C_rr·N_side·tanh(r·ω/v_roll) per side (rolling and
//     drive train), C_rr and v_roll assumed (FSUBot).
//   - Slope (eq. 14): G = r·W·sin θ·cos ψ·(B/2 ∓ C_x)/B for the inner and
//     outer sides (ψ: heading from the uphill direction); the printed matrix
//     of eq. 14 is garbled, this is its dimensionally consistent reading.
//   - Power (eqs. 25–26): P = ω·τ + R_e·i² per side, i = τ/(K_T·g_r·η);
//     R_e is assumed (Table 1 omits it). Energy counts only positive power
//     (a side acting as a generator recovers nothing, Fig. 7).
//
// Quadrature: composite Gauss–Legendre over each patch (Quadrature;
// DefaultQuadrature 4 panels × 4 nodes along, 1 across), pinned within
// 0.5 % of a 64 × 5 × 4 rule over Fig. 6's radii (TestQuadratureConverges).
package terra
