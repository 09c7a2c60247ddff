module example.com/floatargs

go 1.24
