module example.com/fig41

go 1.21
