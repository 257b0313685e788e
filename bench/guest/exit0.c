/* The smallest useful program: what fork+exec+wait in kbench runs. */
int
main(void)
{
	return 0;
}
