module example.com/sites

go 1.21
