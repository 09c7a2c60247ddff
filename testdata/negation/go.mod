module example.com/negation

go 1.21
