module example.com/inits

go 1.21
