package stats_test

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/stats"
)

// Correlations of a ranking with one swap at each end: Spearman's rho is
// 1 − 6·Σd²/(n(n²−1)) = 1 − 6·4/120 = 0.8 (the values are their own ranks,
// so Pearson agrees), and Kendall's tau is (8 concordant − 2 discordant)/10.
func ExampleSpearman() {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{2, 1, 4, 3, 5}
	rho, _ := stats.Spearman(x, y)
	tau, _ := stats.KendallTauB(x, y)
	r, _ := stats.Pearson(x, y)
	fmt.Printf("rho=%.4f tau=%.4f r=%.4f\n", rho, tau, r)
	// Output: rho=0.8000 tau=0.6000 r=0.8000
}

// Pearson on values that are not ranks: r = Σdx·dy / √(Σdx²·Σdy²) =
// 11 / √(5·26) = 0.9647638…; a constant input has no correlation (NaN, as
// scipy), and too short or unequal inputs are errors.
func ExamplePearson() {
	r, _ := stats.Pearson([]float64{1, 2, 3, 4}, []float64{2, 4, 5, 9})
	fmt.Printf("%.6f\n", r)
	c, _ := stats.Pearson([]float64{1, 2, 3}, []float64{7, 7, 7})
	fmt.Println(c)
	_, err := stats.Pearson([]float64{1}, []float64{2})
	fmt.Println(err)
	// Output:
	// 0.964764
	// NaN
	// stats: need at least 2 paired values, got 1
}

// Ties share the mean of the ranks they span (scipy rankdata 'average').
func ExampleRankAverage() {
	fmt.Println(stats.RankAverage([]float64{10, 20, 20, 5}))
	// Output: [2 3.5 3.5 1]
}

// scikit-learn's balanced accuracy: the mean recall over the classes present
// in the truth, here (1/2 + 2/3 + 1)/3 = 0.7222…; "mouse", predicted but never
// true, does not count.
func ExampleBalancedAccuracy() {
	yTrue := []string{"cat", "cat", "dog", "dog", "dog", "eel"}
	yPred := []string{"cat", "dog", "dog", "dog", "mouse", "eel"}
	ba, err := stats.BalancedAccuracy(yTrue, yPred)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f %v\n", ba, stats.Labels(yTrue, yPred))
	// Output: 0.7222 [cat dog eel mouse]
}
