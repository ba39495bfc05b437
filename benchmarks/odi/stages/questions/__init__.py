"""ODI-Bench's questions: descriptions, what a panorama gives, candidate questions of every category, their
answers and the budget."""
