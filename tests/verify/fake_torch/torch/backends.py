class cudnn:
    @staticmethod
    def version():
        return 90100
