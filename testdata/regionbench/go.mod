module example.com/regionbench

go 1.22
