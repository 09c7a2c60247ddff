package progen

import "math/rand"

func genQuestions(r *rand.Rand, p *Program) (string, []string) { return "", nil }
