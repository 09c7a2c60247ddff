module example.com/recoverdep

go 1.21
