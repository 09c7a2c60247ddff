module example.com/allocoutside

go 1.26
