package control

import "strconv"

func strconvFormat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
