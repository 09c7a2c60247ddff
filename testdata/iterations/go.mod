module example.com/iterations

go 1.22
