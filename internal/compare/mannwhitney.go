// Package compare decides whether two sets of repetitions differ beyond run-to-run noise, the
// way benchstat does: a two-sided Mann-Whitney U test on the samples, significant at p < 0.05.
package compare

import (
	"math"
	"sort"
)

// Alpha is the significance level.
const Alpha = 0.05

// MannWhitney returns the two-sided p-value of the U test on a and b. It is exact when there
// are no ties and the samples are small, else the normal approximation with tie correction.
func MannWhitney(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, x := range a {
		all = append(all, obs{x, true})
	}
	for _, x := range b {
		all = append(all, obs{x, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v < all[j].v })
	ranks := make([]float64, len(all))
	ties := false
	tieTerm := 0.0
	for i := 0; i < len(all); {
		j := i
		for j+1 < len(all) && all[j+1].v == all[i].v {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[k] = r
		}
		if t := float64(j - i + 1); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j + 1
	}
	r1 := 0.0
	for i, o := range all {
		if o.first {
			r1 += ranks[i]
		}
	}
	u1 := r1 - float64(n1*(n1+1))/2
	if !ties && n1+n2 <= 50 {
		return exactP(n1, n2, u1)
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	sigma := math.Sqrt(float64(n1*n2) / 12 * ((n + 1) - tieTerm/(n*(n-1))))
	if sigma == 0 {
		return 1
	}
	z := (math.Abs(u1-mu) - 0.5) / sigma
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// exactP is the two-sided p-value from the exact distribution of U (no ties).
func exactP(n1, n2 int, u float64) float64 {
	max := n1 * n2
	// counts[m][n][k]: arrangements of m and n observations with U = k, built up row by row.
	prev := make([][]float64, n2+1)
	for n := 0; n <= n2; n++ {
		prev[n] = make([]float64, max+1)
		prev[n][0] = 1 // m = 0: U is 0
	}
	for m := 1; m <= n1; m++ {
		cur := make([][]float64, n2+1)
		cur[0] = make([]float64, max+1)
		cur[0][0] = 1
		for n := 1; n <= n2; n++ {
			cur[n] = make([]float64, max+1)
			for k := 0; k <= m*n; k++ {
				v := cur[n-1][k]
				if k >= n {
					v += prev[n][k-n]
				}
				cur[n][k] = v
			}
		}
		prev = cur
	}
	dist := prev[n2]
	total := 0.0
	for _, c := range dist {
		total += c
	}
	k := int(math.Round(u))
	lo, hi := 0.0, 0.0
	for i, c := range dist {
		if i <= k {
			lo += c
		}
		if i >= k {
			hi += c
		}
	}
	return math.Min(1, 2*math.Min(lo, hi)/total)
}

// MinP is the smallest p-value samples of these sizes can give: when it is not below Alpha,
// no difference can be shown and the comparison says "~" whatever the data.
func MinP(n1, n2 int) float64 {
	if n1 == 0 || n2 == 0 {
		return 1
	}
	return exactP(n1, n2, 0)
}
