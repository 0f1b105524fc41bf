module example.com/mop-recipes

go 1.19
