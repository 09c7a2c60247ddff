module example.com/regions

go 1.22
