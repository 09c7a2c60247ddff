module example.com/regress

go 1.21
