// Package stats holds classification and correlation statistics with the
// semantics of the Python libraries the reference graders call.
//
// # Entry points
//
// Pearson, Spearman, KendallTauB and RankCorrelations (rho and tau from one
// sort) correlate paired values; RankAverage ranks with ties averaged;
// BalancedAccuracy and Labels score a classification with labels of any
// ordered type.
//
// # Reference behaviour
//
// scipy.stats 1.13 (pearsonr, spearmanr, kendalltau's tau-b, rankdata
// 'average') with scipy ≥ 1.11's conventions, and scikit-learn's
// balanced_accuracy_score (adjusted=False) and unique_labels; means are
// numpy 1.26's (see metrics/num and metrics/REFERENCE-VERSIONS.md).
//
// # Conventions
//
//   - Inputs are paired slices; fewer than 2 values or unequal lengths are
//     an error (scipy raises). Nothing panics.
//   - NaN anywhere, or a constant input, makes a correlation NaN (scipy's
//     nan_policy 'propagate' and its constant-input result); with n = 2,
//     Pearson is sign(Δx)·sign(Δy).
//   - Ties share the mean of the ranks they span; NaN sorts last when
//     ranking. Kendall's tau-b corrects for ties on either side.
//   - Correlations are clipped to [−1, 1].
//   - Balanced accuracy averages the recall of the classes present in the
//     truth, in sorted label order; classes seen only in the prediction are
//     ignored; no class in the truth gives NaN.
package stats
