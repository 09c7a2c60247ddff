module example.com/mutation

go 1.22
