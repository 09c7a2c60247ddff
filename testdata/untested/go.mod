module example.com/untested

go 1.22
